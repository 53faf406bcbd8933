"""Finding template files from the paths a user names on the command line.

Only paths and file reading; no checking.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

SUFFIXES = (".yaml", ".yml")


def template_files(paths: tuple[str, ...]) -> Iterator[Path | OSError]:
    """Each named file, and every *.yaml/*.yml below each named folder; errors for missing paths."""
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
            yield from found
        elif path.exists():
            yield path
        else:
            yield FileNotFoundError(f"{name}: no such file or folder")
