"""Files written whole: a reader at the same time (another process, a crash halfway) sees the
old file or the new one, never a part. For every layer that keeps a file a user or another
process reads: caches, recordings, test cases, saved templates.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    """`data` as the file `path` in one step: written to a temporary file beside it (with the
    umask's usual mode) and renamed. OSError where it cannot be written (read-only, full); no
    temporary file is left."""
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(data)
        os.replace(part, path)
    finally:
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)
