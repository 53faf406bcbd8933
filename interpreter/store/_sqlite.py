"""The SQLite run store (the default backend of `Store`): runs, step executions and artifact
metadata in SQLite (WAL) under the data home, artifact bytes in files beside it, shared safely by
every taskplate process on the machine. Rows only; no run logic.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

from ._release import ReleaseStatements
from ._sql import (
    SqlStore,
    Statements,
    call_fields,
    next_to_start,
    run_fields,
    step_fields,
    whole_row,
)
from ._tables import NEWEST, TABLES, addable, create_indexes, create_tables

_SQL = Statements("?", same="IS", differs="IS NOT")


def _settled(step: Callable[[], object], seconds: float = 30.0) -> None:
    """Run a set-up step, again while another process holds the new database.

    Switching a new database to WAL can fail at once with "database is locked" (SQLite does not
    wait on its busy handler there) when two processes create the store at the same moment."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class DiskBytes:
    """Artifact bytes as files under the data home, each written atomically."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True, mode=0o700)

    def path(self, run_id: str, artifact_id: str) -> Path:
        return self.root / run_id / artifact_id

    async def write(self, run_id: str, artifact_id: str, data: bytes) -> None:
        await anyio.to_thread.run_sync(self._write, run_id, artifact_id, data)  # fsync: not here

    def _write(self, run_id: str, artifact_id: str, data: bytes) -> None:
        target = self.path(run_id, artifact_id)
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = target.with_suffix(".tmp")
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)

    async def read(self, run_id: str, artifact_id: str, offset: int, limit: int | None) -> bytes:
        return await anyio.to_thread.run_sync(self._read, run_id, artifact_id, offset, limit)

    def _read(self, run_id: str, artifact_id: str, offset: int, limit: int | None) -> bytes:
        with open(self.path(run_id, artifact_id), "rb") as source:
            source.seek(offset)
            return source.read(limit if limit is not None else -1)

    async def drop(self, run_id: str, artifact_id: str) -> None:
        self.path(run_id, artifact_id).unlink(missing_ok=True)


class RunStore(SqlStore):
    """One connection per process; every write is a short transaction, WAL lets readers in.

    The calls are coroutines (the `Store` interface) that run the statement on the event loop's
    thread: one SQLite statement takes tens of microseconds, less than a hop to a worker thread,
    and one thread keeps the one connection safe without a lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.description = str(path)
        self.sql = _SQL
        self.releases = ReleaseStatements("?")
        self._db: sqlite3.Connection | None = None
        self._closed = False

    @property
    def db(self) -> sqlite3.Connection:
        """The connection, opened (and the schema made) on first use."""
        if self._db is None:
            if self._closed:
                raise sqlite3.ProgrammingError("the run store is closed")
            self._db = self._connect()
        return self._db

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(
            str(self.path), timeout=30, isolation_level=None, check_same_thread=False
        )
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA busy_timeout=30000")
            _settled(lambda: db.execute("PRAGMA journal_mode=WAL"))
            db.execute("PRAGMA synchronous=NORMAL")
            _settled(lambda: self._create_schema(db))
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _create_schema(db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in create_tables("sqlite", NEWEST):
                db.execute(statement)
            for table in TABLES:  # a store made before a column was added is given it
                known = {row[1] for row in db.execute(f"PRAGMA table_info({table.name})")}
                for column in addable(table):
                    if column.name not in known:
                        db.execute(f"ALTER TABLE {table.name} ADD COLUMN {column.ddl('sqlite')}")
            for statement in create_indexes("sqlite", NEWEST):
                db.execute(statement)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    async def open(self) -> None:
        """Open the file and make the schema; idempotent (any call opens it too)."""
        self.db  # noqa: B018

    async def close(self) -> None:
        """Idempotent; the store is unusable afterwards."""
        self._closed = True
        if self._db is not None:
            self._db.close()

    async def flush(self) -> None:
        """Nothing is kept back: `keep_step` and `keep_progress` write at once."""

    async def __aenter__(self) -> RunStore:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- one statement (`SqlStore` says which), on the event loop's thread ------------------
    def _write(self, query: str, params: tuple[Any, ...] = ()) -> int:
        with self.transaction() as db:
            return db.execute(query, params).rowcount

    async def _execute(self, query: str, params: tuple[Any, ...] = ()) -> int:
        return self._write(query, params)

    async def _one(self, query: str, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        row = self.db.execute(query, params).fetchone()
        return dict(row) if row else None

    async def _all(self, query: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute(query, params).fetchall()]

    def keep_progress(self, run_id: str, progress: dict[str, Any]) -> None:
        """Written at once: a SQLite write is well under a millisecond."""
        encoded = run_fields({"progress": progress})
        self._write(self.sql.update_run(list(encoded)), (*encoded.values(), run_id))

    async def start_next(
        self,
        owner: str,
        limit: int,
        alive_since: float,
        share: Callable[[str | None], int | None],
    ) -> str | None:
        with self.transaction() as db:  # BEGIN IMMEDIATE: one admission at a time
            holding = {r["principal"]: int(r["n"]) for r in db.execute(self.sql.holding)}
            heads = [dict(r) for r in db.execute(self.sql.queued_heads, (alive_since, owner))]
            chosen = next_to_start(holding, heads, limit, share)
            if chosen is None or chosen["owner"] != owner:
                return None
            now = time.time()
            started = db.execute(self.sql.start, (now, now, chosen["run_id"])).rowcount == 1
            return str(chosen["run_id"]) if started else None

    # -- steps and kept calls -------------------------------------------------------------
    async def write_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """A step execution, and with `call` the whole call too (one transaction for both)."""
        self.keep_step(run_id, seq, call, **fields)

    def keep_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """Written at once: a SQLite write is well under a millisecond."""
        row = whole_row("steps", (run_id, seq), step_fields(fields))
        with self.transaction() as db:
            db.execute(self.sql.replace("steps"), row)
            if call is not None:
                db.execute(
                    self.sql.replace("calls"), whole_row("calls", (run_id, seq), call_fields(call))
                )

    def keep_checkpoint(
        self, run_id: str, key: str, seq: int, value: str | None, artifact_id: str | None = None
    ) -> None:
        """Written at once: a SQLite write is well under a millisecond."""
        with self.transaction() as db:
            db.execute(self.sql.replace("checkpoints"), (run_id, key, seq, value, artifact_id))

    async def keep_call(self, source: str, seq: int | None, **fields: Any) -> None:
        """One successful action call; `seq` None appends it after the source's last call."""
        with self.transaction() as db:
            if seq is None:
                last = db.execute(self.sql.last_call, (source,)).fetchone()[0]
                seq = 0 if last is None else int(last) + 1
            db.execute(
                self.sql.replace("calls"), whole_row("calls", (source, seq), call_fields(fields))
            )

    def artifact_bytes(self, root: Path) -> DiskBytes:
        return DiskBytes(root)
