"""Which answers a start on stdio may give (`_front.py`): those the SDK's server gave at an
earlier start, kept in the cache folder under a fingerprint of the code. A first start has none
(the SDK's server answers it, and its answers are kept): nothing is shipped or committed that a
change of the code would make stale. Imports little: it runs before the SDK loads.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taskplate.browser import data_home
from taskplate.dsl import cache_folder

# Where the data and the templates are: neither changes an answer the start gives.
_WHERE = ("TASKPLATE_HOME", "TASKPLATE_TEMPLATES")


def _settings() -> list[tuple[str, str]]:
    """The TASKPLATE_* settings that configure a server (not where the data and templates are)."""
    return sorted(
        (k, v) for k, v in os.environ.items() if k.startswith("TASKPLATE_") and k not in _WHERE
    )


def _name(argv: Sequence[str]) -> str:
    """The answers file's name: from what configures this server (its options and settings)."""
    return hashlib.sha256(json.dumps([list(argv), _settings()]).encode()).hexdigest()[:20]


def _package() -> Path:
    return Path(sys.modules["taskplate"].__file__ or "").parent


def _code_files() -> list[tuple[str, str]]:
    """(folder, file) of every file of taskplate's code, in a fixed order."""
    found = []
    for folder, dirs, files in os.walk(_package(), followlinks=True):  # the layers are links
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found += [(folder, f) for f in sorted(files) if f.endswith((".py", ".json", ".lark"))]
    return found


def dists() -> list[str]:
    """The installed distributions whose versions change an answer: taskplate's (its version
    is in `serverInfo`), the SDK's and pydantic's."""
    names = []
    for site in sorted({Path(p) for p in sys.path if p.endswith("-packages")}):
        for dist in ("taskplate", "mcp", "mcp_types", "pydantic", "pydantic_core"):
            names.append(" ".join(sorted(p.name for p in site.glob(f"{dist}-*.dist-info"))))
    return names


def _served_files() -> list[Path]:
    """The data home's taskplate.toml and the template files of the data home and of
    TASKPLATE_TEMPLATES (what `--templates` adds is in the options)."""
    home = data_home()
    folders = [home / "templates"]
    folders += [Path(p) for p in os.environ.get("TASKPLATE_TEMPLATES", "").split(os.pathsep) if p]
    found = [home / "taskplate.toml"]
    for folder in folders:
        if folder.is_dir():
            found += sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".toml"))
    return found


def fingerprint(argv: Sequence[str]) -> tuple[str, str]:
    """(the answers file's name, the fingerprint its answers hold for): the name from what
    configures this server, the fingerprint from the code that answers (taskplate's files by
    size and time, the distributions of `dists`, Python)."""
    code = hashlib.sha256(sys.version.encode())
    for folder, file in _code_files():
        stat = os.stat(os.path.join(folder, file))
        code.update(f"{folder}/{file}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    for names in dists():
        code.update(names.encode())
    for path in _served_files():  # [serve] and the templates as tools change tools/list
        with contextlib.suppress(OSError):
            stat = path.stat()
            code.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return f"serve-{_name(argv)}.json", code.hexdigest()


def answers_file(argv: Sequence[str]) -> tuple[Path, str]:
    """Where this server's kept answers are kept (the cache folder of `dsl validate`'s
    parser), and the fingerprint they must hold for."""
    name, code = fingerprint(argv)
    return cache_folder() / name, code


def kept_answers(path: Path, code: str) -> dict[str, Any]:
    """The answers kept at `path` for this fingerprint, or none (absent, stale, unreadable)."""
    try:
        kept = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(kept, dict) or kept.get("fingerprint") != code:
        return {}
    return kept
