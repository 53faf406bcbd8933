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

from ._stores import TERMINAL, RunRow, dump, load, run_fields, run_row, step_fields, step_row

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    template_id TEXT NOT NULL,
    template_version TEXT NOT NULL,
    status TEXT NOT NULL,
    inputs TEXT NOT NULL,
    options TEXT NOT NULL,
    progress TEXT NOT NULL DEFAULT '{}',
    result TEXT,
    error TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL,
    owner TEXT,
    heartbeat_at REAL,
    cancel TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_created ON runs (created_at DESC);
CREATE TABLE IF NOT EXISTS steps (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    step_id TEXT,
    item_index INTEGER,
    action TEXT,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    started_at REAL,
    ended_at REAL,
    args_preview TEXT,
    result_preview TEXT,
    error TEXT,
    tab_id TEXT,
    screenshot_artifact_id TEXT,
    provider TEXT,
    capability_level TEXT,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS artifacts (
    artifact_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    name TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    created_at REAL NOT NULL,
    expired INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS artifacts_by_run ON artifacts (run_id);
CREATE TABLE IF NOT EXISTS calls (
    source TEXT NOT NULL,
    seq INTEGER NOT NULL,
    step_id TEXT,
    item_index INTEGER,
    action TEXT NOT NULL,
    tab TEXT,
    args TEXT NOT NULL,
    opened_tab TEXT,
    PRIMARY KEY (source, seq)
);
"""
# `calls` keeps every successful action call whole, for templates recorded from it: `source` is
# a run id (its step executions, `seq` as in `steps`) or a session id (the browser tools called
# in it); `tab` is null for the main tab, "new", or a tab id; a secret's value is stored as
# {"$secret": true}, never in clear.

# Columns added after a store may have been created: (table, column, type).
_ADDED = (
    ("steps", "tab_id", "TEXT"),
    ("steps", "screenshot_artifact_id", "TEXT"),
    ("steps", "provider", "TEXT"),
    ("steps", "capability_level", "TEXT"),
    ("steps", "confirmation", "TEXT"),  # a confirmation's question, answer and who answered
    ("runs", "waiting", "TEXT"),  # a hand-over's reason, URL and screenshot while it waits
    ("runs", "resume", "REAL"),  # when resume_task_run asked a waiting run to go on
)
_ACTIVE_SQL = "('queued', 'running', 'waiting_for_human')"


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


class RunStore:
    """One connection per process; every write is a short transaction, WAL lets readers in.

    The calls are coroutines (the `Store` interface) that run the statement on the event loop's
    thread: one SQLite statement takes tens of microseconds, less than a hop to a worker thread,
    and one thread keeps the one connection safe without a lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.description = str(path)
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
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            for table, column, kind in _ADDED:
                known = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
                if column not in known:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
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

    # -- runs ---------------------------------------------------------------------------------
    async def insert_run(
        self,
        run_id: str,
        template_id: str,
        version: str,
        inputs: dict[str, Any],
        options: dict[str, Any],
        owner: str,
    ) -> None:
        now = time.time()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO runs (run_id, template_id, template_version, status, inputs, options, created_at, updated_at, owner, heartbeat_at)"
                " VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)",
                (run_id, template_id, version, dump(inputs), dump(options), now, now, owner, now),
            )

    async def run(self, run_id: str) -> RunRow | None:
        row = self.db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return run_row(row) if row else None

    async def update_run(self, run_id: str, **fields: Any) -> None:
        """Set fields of a run that is not terminal yet (terminal states never change)."""
        self._update_run(run_id, fields)

    def keep_progress(self, run_id: str, progress: dict[str, Any]) -> None:
        """Written at once: a SQLite write is well under a millisecond."""
        self._update_run(run_id, {"progress": progress})

    def _update_run(self, run_id: str, fields: dict[str, Any]) -> None:
        encoded = run_fields(fields)
        encoded["updated_at"] = time.time()
        assignments = ", ".join(f"{k} = ?" for k in encoded)
        placeholders = ",".join("?" for _ in TERMINAL)
        with self.transaction() as db:
            db.execute(
                f"UPDATE runs SET {assignments} WHERE run_id = ? AND status NOT IN ({placeholders})",
                (*encoded.values(), run_id, *TERMINAL),
            )

    async def list_runs(
        self, status: str | None, template_id: str | None, limit: int, offset: int
    ) -> tuple[list[RunRow], int]:
        where, params = [], []
        if status:
            where.append("status = ?")
            params.append(status)
        if template_id:
            where.append("template_id = ?")
            params.append(template_id)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        total = self.db.execute(f"SELECT COUNT(*) FROM runs {clause}", params).fetchone()[0]
        rows = self.db.execute(
            f"SELECT * FROM runs {clause} ORDER BY created_at DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        ).fetchall()
        return [run_row(r) for r in rows], int(total)

    async def request_cancel(self, run_id: str, force: bool) -> None:
        with self.transaction() as db:
            db.execute(
                f"UPDATE runs SET cancel = ?, updated_at = ? WHERE run_id = ? AND status IN {_ACTIVE_SQL}",
                ("force" if force else "cooperative", time.time(), run_id),
            )

    async def request_resume(self, run_id: str) -> bool:
        """Ask a run waiting for a person to go on; False when it is not waiting."""
        with self.transaction() as db:
            done = db.execute(
                "UPDATE runs SET resume = ?, updated_at = ? WHERE run_id = ? AND status = 'waiting_for_human'",
                (time.time(), time.time(), run_id),
            )
            return done.rowcount == 1

    async def resume_flag(self, run_id: str) -> float | None:
        row = self.db.execute("SELECT resume FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return row[0] if row else None

    async def cancel_flag(self, run_id: str) -> str | None:
        row = self.db.execute("SELECT cancel FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return row[0] if row else None

    async def heartbeat(self, owner: str) -> None:
        with self.transaction() as db:
            db.execute(
                f"UPDATE runs SET heartbeat_at = ? WHERE owner = ? AND status IN {_ACTIVE_SQL}",
                (time.time(), owner),
            )

    async def active_of_others(self, me: str) -> list[RunRow]:
        rows = self.db.execute(
            f"SELECT * FROM runs WHERE status IN {_ACTIVE_SQL} AND owner != ?", (me,)
        ).fetchall()
        return [run_row(r) for r in rows]

    async def claim(self, run_id: str, previous_owner: str | None, me: str) -> bool:
        """Take over a queued run of a dead owner; True when this process got it."""
        with self.transaction() as db:
            done = db.execute(
                "UPDATE runs SET owner = ?, heartbeat_at = ?, updated_at = ? WHERE run_id = ? AND owner IS ? AND status = 'queued'",
                (me, time.time(), time.time(), run_id, previous_owner),
            )
            return done.rowcount == 1

    async def start_if_free(self, run_id: str, limit: int, alive_since: float) -> bool:
        with self.transaction() as db:  # BEGIN IMMEDIATE: one admission at a time
            running = db.execute(
                "SELECT COUNT(*) FROM runs WHERE status IN ('running', 'waiting_for_human')"
            ).fetchone()
            if running[0] >= limit:
                return False
            first = db.execute(
                "SELECT run_id FROM runs WHERE status = 'queued' AND cancel IS NULL"
                " AND (heartbeat_at >= ? OR run_id = ?) ORDER BY created_at, run_id LIMIT 1",
                (alive_since, run_id),
            ).fetchone()
            if first is None or first[0] != run_id:
                return False
            now = time.time()
            done = db.execute(
                "UPDATE runs SET status = 'running', started_at = ?, updated_at = ?"
                " WHERE run_id = ? AND status = 'queued'",
                (now, now, run_id),
            )
            return done.rowcount == 1

    # -- steps --------------------------------------------------------------------------------
    async def record_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """A step execution, and with `call` the whole call too (one transaction for both)."""
        self.keep_step(run_id, seq, call, **fields)

    def keep_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """Written at once: a SQLite write is well under a millisecond."""
        fields = step_fields(fields)
        columns = ", ".join(["run_id", "seq", *fields])
        marks = ", ".join("?" for _ in range(len(fields) + 2))
        with self.transaction() as db:
            db.execute(
                f"INSERT OR REPLACE INTO steps ({columns}) VALUES ({marks})",
                (run_id, seq, *fields.values()),
            )
            if call is not None:
                self._insert_call(db, run_id, seq, call)

    async def steps(self, run_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT * FROM steps WHERE run_id = ? ORDER BY seq", (run_id,)
        ).fetchall()
        out = []
        for row in rows:
            data = dict(row)
            step_row(data)
            out.append(data)
        return out

    # -- recorded calls -------------------------------------------------------------------------
    async def record_call(self, source: str, seq: int | None, **fields: Any) -> None:
        """One successful action call; `seq` None appends it after the source's last call."""
        with self.transaction() as db:
            if seq is None:
                last = db.execute(
                    "SELECT MAX(seq) FROM calls WHERE source = ?", (source,)
                ).fetchone()[0]
                seq = 0 if last is None else int(last) + 1
            self._insert_call(db, source, seq, fields)

    @staticmethod
    def _insert_call(db: sqlite3.Connection, source: str, seq: int, call: dict[str, Any]) -> None:
        fields = {**call, "args": dump(call["args"])}
        columns = ", ".join(["source", "seq", *fields])
        marks = ", ".join("?" for _ in range(len(fields) + 2))
        db.execute(
            f"INSERT OR REPLACE INTO calls ({columns}) VALUES ({marks})",
            (source, seq, *fields.values()),
        )

    async def calls(self, source: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT * FROM calls WHERE source = ? ORDER BY seq", (source,)
        ).fetchall()
        out = []
        for row in rows:
            data = dict(row)
            data["args"] = load(data["args"])
            out.append(data)
        return out

    # -- artifacts ----------------------------------------------------------------------------
    async def insert_artifact(
        self, artifact_id: str, run_id: str, name: str, mime_type: str, size: int, sha256: str
    ) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO artifacts (artifact_id, run_id, name, mime_type, size, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (artifact_id, run_id, name, mime_type, size, sha256, time.time()),
            )

    async def artifact(self, artifact_id: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT * FROM artifacts WHERE artifact_id = ?", (artifact_id,)
        ).fetchone()
        return dict(row) if row else None

    async def artifacts_of(self, run_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT * FROM artifacts WHERE run_id = ? ORDER BY created_at", (run_id,)
        ).fetchall()
        return [dict(r) for r in rows]

    async def live_artifacts(self) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT * FROM artifacts WHERE expired = 0").fetchall()
        return [dict(r) for r in rows]

    def artifact_bytes(self, root: Path) -> DiskBytes:
        return DiskBytes(root)

    async def mark_expired(self, artifact_id: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE artifacts SET expired = 1 WHERE artifact_id = ?", (artifact_id,))
