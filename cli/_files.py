"""Finding template files from the paths a user names on the command line.

Only paths and file reading; no checking.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importlib.resources loads only to find a shipped template by its id
    from importlib.resources.abc import Traversable

SUFFIXES = (".yaml", ".yml")
TEMPLATE_ID = re.compile(r"[a-z][a-z0-9_]*")


def shipped(template_id: str) -> Traversable | None:
    """The shipped template file named by its id, wherever the package is installed."""
    if not TEMPLATE_ID.fullmatch(template_id):
        return None
    from importlib.resources import files

    found = files("taskplate") / "templates" / f"{template_id}.yaml"
    return found if found.is_file() else None


def template_files(paths: tuple[str, ...]) -> Iterator[Path | Traversable | OSError]:
    """Each named file, every *.yaml/*.yml below each named folder, a shipped template named by
    its id; errors for missing paths."""
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
            yield from found
        elif path.exists():
            yield path
        elif by_id := shipped(name):
            yield by_id
        else:
            shipped_too = ", nor a shipped template" if TEMPLATE_ID.fullmatch(name) else ""
            yield FileNotFoundError(f"{name}: no such file or folder{shipped_too}")
