"""Every object that opens the run store's SQLite connection closes it: on a normal close, on
leaving `running()`, and when construction fails half-way (Python 3.13 reports the rest)."""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from taskplate.interpreter import SHIPPED, RunManager, RunStore, TemplateLibrary
from taskplate.interpreter.store import _sqlite as _store_sqlite
from taskplate.stdlib import REGISTRY

pytestmark = pytest.mark.anyio


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[sqlite3.Connection]]:
    """Every connection the store opens, checked closed at the end under ResourceWarning=error."""
    connections: list[sqlite3.Connection] = []
    real = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        connection = real(*args, **kwargs)  # type: ignore[arg-type]
        connections.append(connection)
        return connection

    monkeypatch.setattr(_store_sqlite.sqlite3, "connect", connect)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        yield connections
    still_open = []
    for connection in connections:
        try:
            connection.execute("SELECT 1")
            still_open.append(connection)
        except sqlite3.ProgrammingError:  # "Cannot operate on a closed database"
            pass
    for connection in still_open:
        connection.close()
    assert not still_open, f"{len(still_open)} of {len(connections)} connections left open"


def library() -> TemplateLibrary:
    return TemplateLibrary(REGISTRY).load([SHIPPED])


@pytest.mark.anyio
async def test_many_stores_and_managers_open_and_close(
    tmp_path: Path, opened: list[sqlite3.Connection]
) -> None:
    lib = library()
    for i in range(40):
        async with RunStore(tmp_path / "runs.db") as store:
            await store.list_runs(None, None, 1, 0)
        async with RunManager(tmp_path / f"home{i % 3}", lib) as manager:
            await manager.list(None, None, 5, 0)
        async with RunStore(tmp_path / "again.db"):
            pass
    assert len(opened) == 120


async def test_leaving_running_closes_the_store(
    tmp_path: Path, opened: list[sqlite3.Connection]
) -> None:
    for _ in range(5):
        manager = RunManager(tmp_path / "home", library())
        async with manager.running():
            pass
    assert len(opened) == 5


@pytest.mark.anyio
async def test_a_store_that_cannot_be_set_up_closes_its_connection(
    tmp_path: Path, opened: list[sqlite3.Connection]
) -> None:
    not_a_db = tmp_path / "runs.db"
    not_a_db.write_bytes(b"this is not a database file" * 100)
    for _ in range(10):
        with pytest.raises(sqlite3.DatabaseError):
            await RunStore(not_a_db).open()
    assert len(opened) == 10


@pytest.mark.anyio
async def test_a_manager_that_fails_half_way_closes_its_store(
    tmp_path: Path, opened: list[sqlite3.Connection]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "artifacts").write_text("a file where the artifacts folder belongs")
    for _ in range(10):
        with pytest.raises(OSError):
            RunManager(home, library())
    assert opened == []  # the constructor opens nothing: the store opens in `running()`

    @asynccontextmanager
    async def broken() -> AsyncIterator[None]:
        raise OSError("a provider that cannot start")
        yield

    for i in range(10):  # the store opened, then `running()` fails half way
        lib = library()
        lib.running = broken  # type: ignore[method-assign]
        manager = RunManager(tmp_path / f"home{i}", lib)
        with pytest.raises(OSError), anyio.fail_after(60):
            async with manager.running():
                pass
    assert len(opened) == 10
