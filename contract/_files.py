"""Files written whole: a reader at the same time (another process, a crash halfway) sees the
old file or the new one, never a part. For every layer that keeps a file a user or another
process reads: caches, recordings, test cases, saved templates. And files a user names read
within a bound: a regular file of at most so many bytes, never a device or a pipe.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


class FileRefused(ValueError):
    """A file not read: not a regular file, or larger than its bound."""


def read_bounded(path: Path, most: int) -> bytes:
    """The bytes of the regular file `path` (symlinks followed), refused with FileRefused
    before it is read when it is something else (a device such as /dev/zero, a pipe, a folder)
    or larger than `most` bytes; a file that grows meanwhile is read no further than the bound.
    OSError where it cannot be opened (FileNotFoundError when it is not there)."""
    # not blocking: opening a pipe would wait for a writer; on a regular file it changes nothing
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        found = os.fstat(fd)  # of what was opened, not of what the name means by now
        if not stat.S_ISREG(found.st_mode):
            raise FileRefused("not a regular file")
        if found.st_size > most:
            raise FileRefused(f"{found.st_size} bytes, over the bound of {most}")
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read(most + 1)
    finally:
        os.close(fd)
    if len(data) > most:
        raise FileRefused(f"over the bound of {most} bytes (it grew as it was read)")
    return data


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
