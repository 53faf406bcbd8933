"""A file a user names is read within a bound (#40 item 5): a regular file of at most so many
bytes, told before it is read; a device or a pipe is refused without waiting on it, and a file
that grows as it is read is read no further than the bound."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from taskplate.contract import FileRefused, read_bounded


def test_a_regular_file_within_the_bound_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"12345")
    assert read_bounded(path, 5) == b"12345"
    with pytest.raises(FileRefused, match=r"^5 bytes, over the bound of 4$"):
        read_bounded(path, 4)
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "gone.txt", 5)


def test_a_device_a_pipe_or_a_folder_is_refused_unread(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # no writer: opening it to read, blocking, would wait for ever
    for path in (Path("/dev/zero"), pipe, tmp_path):
        with pytest.raises(FileRefused, match=r"^not a regular file$"):
            read_bounded(path, 1024)


def test_a_file_that_grew_after_its_size_was_told_is_read_no_further_than_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.txt"
    path.write_bytes(b"x" * 100)
    told = os.fstat

    def small(fd: int) -> Any:  # the size when it was told; the bytes written since
        found = list(told(fd))
        found[6] = 1  # st_size
        return os.stat_result(found)

    monkeypatch.setattr(os, "fstat", small)
    with pytest.raises(FileRefused, match="it grew as it was read"):
        read_bounded(path, 10)
