"""The PostgreSQL run store (`TASKPLATE_STORE=postgresql://…`): the same rows as the SQLite store,
artifact bytes included (bytea), shared by every server on the database. Rows only; no run logic.

The schema is created and migrated here, one numbered step at a time, under an advisory lock.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from taskplate.contract import ErrorCode, TaskplateError

from ._stores import TERMINAL, RunRow, dump, load, run_fields, run_row, step_fields, step_row

# Each entry brings the schema from version i to i + 1; never edit one that has shipped.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        template_id TEXT NOT NULL,
        template_version TEXT NOT NULL,
        status TEXT NOT NULL,
        inputs TEXT NOT NULL,
        options TEXT NOT NULL,
        progress TEXT NOT NULL DEFAULT '{}',
        result TEXT,
        error TEXT,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        started_at DOUBLE PRECISION,
        ended_at DOUBLE PRECISION,
        owner TEXT,
        heartbeat_at DOUBLE PRECISION,
        cancel TEXT
    );
    CREATE INDEX runs_by_created ON runs (created_at DESC);
    CREATE INDEX runs_active ON runs (status) WHERE status IN ('queued', 'running');
    CREATE TABLE steps (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        step_id TEXT,
        item_index INTEGER,
        action TEXT,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        started_at DOUBLE PRECISION,
        ended_at DOUBLE PRECISION,
        args_preview TEXT,
        result_preview TEXT,
        error TEXT,
        tab_id TEXT,
        screenshot_artifact_id TEXT,
        provider TEXT,
        capability_level TEXT,
        PRIMARY KEY (run_id, seq)
    );
    CREATE TABLE artifacts (
        artifact_id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        name TEXT NOT NULL,
        mime_type TEXT NOT NULL,
        size BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        expired INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX artifacts_by_run ON artifacts (run_id);
    CREATE TABLE artifact_data (
        artifact_id TEXT PRIMARY KEY,
        data BYTEA NOT NULL
    );
    CREATE TABLE calls (
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
    """,
    # 2: confirmations in step records; a hand-over's wait and resume request on the run.
    """
    ALTER TABLE steps ADD COLUMN confirmation TEXT;
    ALTER TABLE runs ADD COLUMN waiting TEXT;
    ALTER TABLE runs ADD COLUMN resume DOUBLE PRECISION;
    DROP INDEX runs_active;
    CREATE INDEX runs_active ON runs (status)
        WHERE status IN ('queued', 'running', 'waiting_for_human');
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
FLUSH_ROWS = 200  # kept-back step records written in one go at most
POOL_SIZE = 4  # connections per process: a transaction holds one, other calls go on beside it
_ACTIVE_SQL = "('queued', 'running', 'waiting_for_human')"
_MIGRATE_LOCK = 0x7461736B  # advisory lock keys: 'task' for migrations, 'plat' for admission
_ADMIT_LOCK = 0x706C6174

Connection = psycopg.AsyncConnection[dict[str, Any]]


def _shown(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


async def migrate(db: psycopg.AsyncConnection[Any]) -> int:
    """Bring the schema to SCHEMA_VERSION; answers the version found before."""
    async with db.transaction():
        await db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
        await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = await (await db.execute("SELECT max(version) AS v FROM schema_version")).fetchone()
        found = int(row["v"]) if row and row["v"] is not None else 0
        if found > SCHEMA_VERSION:
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"the store's schema is version {found}; this taskplate knows up to {SCHEMA_VERSION}",
                "Upgrade taskplate on this host to the version the other servers run.",
            )
        for version in range(found, SCHEMA_VERSION):
            await db.execute(MIGRATIONS[version])
            await db.execute("INSERT INTO schema_version (version) VALUES (%s)", (version + 1,))
        return found


class PostgresStore:
    """A small pool of async connections per process (autocommit; each write one statement or
    a short transaction). No call blocks the event loop on the database."""

    def __init__(self, url: str, connect_timeout_s: int = 10) -> None:
        self.url = url
        self.description = _shown(url)
        self.connect_timeout_s = connect_timeout_s
        self._steps: dict[tuple[str, int], dict[str, Any]] = {}  # kept back until `flush`
        self._calls: dict[tuple[str, int], dict[str, Any]] = {}
        self._progress: dict[str, dict[str, Any]] = {}
        self._pool: AsyncConnectionPool[Connection] | None = None
        self._opening = anyio.Lock()
        self._flushing = anyio.Lock()
        self._closed = False

    async def open(self) -> None:
        """Connect and migrate the schema; idempotent. A store that cannot be reached within
        `connect_timeout_s` is a clear error, never a wait without end."""
        async with self._opening:
            if self._pool is not None:
                return
            if self._closed:
                raise RuntimeError("the store is closed")
            try:  # one connection first: its failure names the reason at once
                first = await psycopg.AsyncConnection.connect(
                    self.url,
                    autocommit=True,
                    row_factory=dict_row,
                    connect_timeout=self.connect_timeout_s,
                )
            except psycopg.Error as exc:
                raise TaskplateError(
                    ErrorCode.EXECUTION_ERROR,
                    f"cannot open the run store {self.description}: {str(exc).strip()}",
                    "Check TASKPLATE_STORE (or --store): the server must run and accept this user.",
                ) from None
            try:
                await migrate(first)
            finally:
                with anyio.CancelScope(shield=True):
                    await first.close()
            pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
                self.url,
                min_size=1,
                max_size=POOL_SIZE,
                kwargs={
                    "autocommit": True,
                    "row_factory": dict_row,
                    "connect_timeout": self.connect_timeout_s,
                },
                timeout=60.0,  # a call waiting for a free connection
                open=False,
                name="taskplate-store",
            )
            try:
                await pool.open(wait=True, timeout=float(self.connect_timeout_s))
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await pool.close(timeout=5.0)
                raise
            self._pool = pool

    async def _ready(self) -> AsyncConnectionPool[Connection]:
        if self._pool is None:
            await self.open()
        assert self._pool is not None
        return self._pool

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        await self.flush()
        pool = await self._ready()
        async with pool.connection() as db, db.transaction():
            yield db

    async def _execute(self, query: Any, params: tuple[Any, ...] = ()) -> int:
        """One statement; answers its rowcount."""
        await self.flush()
        pool = await self._ready()
        async with pool.connection() as db:
            return (await db.execute(query, params)).rowcount

    async def _all(self, query: Any, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        await self.flush()
        pool = await self._ready()
        async with pool.connection() as db:
            return await (await db.execute(query, params)).fetchall()

    async def _one(self, query: Any, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        await self.flush()
        pool = await self._ready()
        async with pool.connection() as db:
            return await (await db.execute(query, params)).fetchone()

    async def flush(self) -> None:
        """Write what was kept back, in one transaction of one round trip or a few.

        Step records are the hot path (two per step): they wait here at most FLUSH_S (the run
        manager flushes that often), and every other call of this store flushes first, waiting
        for a flush under way, so this process reads its own writes in order; other processes
        see a step at most FLUSH_S (or the next call) late."""
        if not (self._steps or self._calls or self._progress) and not self._flushing.locked():
            return
        async with self._flushing:
            if not (self._steps or self._calls or self._progress):
                return
            steps, calls, progress = self._steps, self._calls, self._progress
            self._steps, self._calls, self._progress = {}, {}, {}
            pool = await self._ready()
            async with pool.connection() as db, db.transaction():
                if steps:
                    await _replace_many(db, "steps", ("run_id", "seq"), steps)
                if calls:
                    await _replace_many(db, "calls", ("source", "seq"), calls)
                if progress:
                    now = time.time()
                    async with db.cursor() as cursor:
                        await cursor.executemany(
                            "UPDATE runs SET progress = %s, updated_at = %s WHERE run_id = %s"
                            " AND status <> ALL(%s)",
                            [(dump(p), now, r, list(TERMINAL)) for r, p in progress.items()],
                        )

    async def close(self) -> None:
        """Idempotent; the store is unusable afterwards. Writes what is kept back first
        (bounded: a database that does not answer within seconds is left)."""
        if self._closed:
            return
        self._closed = True
        if self._pool is None:
            return
        with anyio.CancelScope(shield=True):
            try:
                with anyio.move_on_after(10):
                    await self.flush()
            finally:
                pool, self._pool = self._pool, None
                await pool.close(timeout=5.0)

    async def __aenter__(self) -> PostgresStore:
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
        await self._execute(
            "INSERT INTO runs (run_id, template_id, template_version, status, inputs, options,"
            " created_at, updated_at, owner, heartbeat_at)"
            " VALUES (%s, %s, %s, 'queued', %s, %s, %s, %s, %s, %s)",
            (run_id, template_id, version, dump(inputs), dump(options), now, now, owner, now),
        )

    async def run(self, run_id: str) -> RunRow | None:
        row = await self._one("SELECT * FROM runs WHERE run_id = %s", (run_id,))
        return run_row(row) if row else None

    async def update_run(self, run_id: str, **fields: Any) -> None:
        """Set fields of a run that is not terminal yet (terminal states never change)."""
        encoded = run_fields(fields)
        encoded["updated_at"] = time.time()
        assignments = ", ".join(f"{k} = %s" for k in encoded)
        await self._execute(
            f"UPDATE runs SET {assignments} WHERE run_id = %s AND status <> ALL(%s)",
            (*encoded.values(), run_id, list(TERMINAL)),
        )

    def keep_progress(self, run_id: str, progress: dict[str, Any]) -> None:
        self._progress[run_id] = progress  # a later progress replaces it

    async def list_runs(
        self, status: str | None, template_id: str | None, limit: int, offset: int
    ) -> tuple[list[RunRow], int]:
        where, params = [], []
        if status:
            where.append("status = %s")
            params.append(status)
        if template_id:
            where.append("template_id = %s")
            params.append(template_id)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        total = await self._one(f"SELECT COUNT(*) AS n FROM runs {clause}", tuple(params))
        rows = await self._all(
            f"SELECT * FROM runs {clause} ORDER BY created_at DESC LIMIT %s OFFSET %s",
            (*params, limit, offset),
        )
        return [run_row(r) for r in rows], int(total["n"] if total else 0)

    async def request_cancel(self, run_id: str, force: bool) -> None:
        await self._execute(
            "UPDATE runs SET cancel = %s, updated_at = %s WHERE run_id = %s"
            f" AND status IN {_ACTIVE_SQL}",
            ("force" if force else "cooperative", time.time(), run_id),
        )

    async def request_resume(self, run_id: str) -> bool:
        """Ask a run waiting for a person to go on; False when it is not waiting."""
        now = time.time()
        done = await self._execute(
            "UPDATE runs SET resume = %s, updated_at = %s WHERE run_id = %s"
            " AND status = 'waiting_for_human'",
            (now, now, run_id),
        )
        return done == 1

    async def resume_flag(self, run_id: str) -> float | None:
        row = await self._one("SELECT resume FROM runs WHERE run_id = %s", (run_id,))
        return row["resume"] if row else None

    async def cancel_flag(self, run_id: str) -> str | None:
        row = await self._one("SELECT cancel FROM runs WHERE run_id = %s", (run_id,))
        return row["cancel"] if row else None

    async def heartbeat(self, owner: str) -> None:
        await self._execute(
            f"UPDATE runs SET heartbeat_at = %s WHERE owner = %s AND status IN {_ACTIVE_SQL}",
            (time.time(), owner),
        )

    async def active_of_others(self, me: str) -> list[RunRow]:
        rows = await self._all(
            f"SELECT * FROM runs WHERE status IN {_ACTIVE_SQL} AND owner IS DISTINCT FROM %s",
            (me,),
        )
        return [run_row(r) for r in rows]

    async def claim(self, run_id: str, previous_owner: str | None, me: str) -> bool:
        """Take over a queued run of a dead owner; True when this process got it."""
        now = time.time()
        done = await self._execute(
            "UPDATE runs SET owner = %s, heartbeat_at = %s, updated_at = %s WHERE run_id = %s"
            " AND owner IS NOT DISTINCT FROM %s AND status = 'queued'",
            (me, now, now, run_id, previous_owner),
        )
        return done == 1

    async def start_if_free(self, run_id: str, limit: int, alive_since: float) -> bool:
        async with self.transaction() as db:
            # One admission at a time across every server on the store.
            await db.execute("SELECT pg_advisory_xact_lock(%s)", (_ADMIT_LOCK,))
            running = await db.execute(
                "SELECT COUNT(*) AS n FROM runs WHERE status IN ('running', 'waiting_for_human')"
            )
            if ((await running.fetchone()) or {"n": 0})["n"] >= limit:
                return False
            first = await (
                await db.execute(
                    "SELECT run_id FROM runs WHERE status = 'queued' AND cancel IS NULL"
                    " AND (heartbeat_at >= %s OR run_id = %s) ORDER BY created_at, run_id LIMIT 1",
                    (alive_since, run_id),
                )
            ).fetchone()
            if first is None or first["run_id"] != run_id:
                return False
            now = time.time()
            done = await db.execute(
                "UPDATE runs SET status = 'running', started_at = %s, updated_at = %s"
                " WHERE run_id = %s AND status = 'queued'",
                (now, now, run_id),
            )
            return done.rowcount == 1

    # -- steps --------------------------------------------------------------------------------
    async def record_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """A step execution, and with `call` the whole call too (one transaction for both)."""
        self.keep_step(run_id, seq, call, **fields)
        if len(self._steps) >= FLUSH_ROWS:
            await self.flush()

    def keep_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        fields = step_fields(fields)
        unknown = set(fields) - set(_COLUMNS["steps"])
        if unknown:
            raise ValueError(f"no column {sorted(unknown)} in steps")
        self._steps[(run_id, seq)] = fields  # a later record of the step replaces it whole
        if call is not None:
            self._calls[(run_id, seq)] = {**call, "args": dump(call["args"])}

    async def steps(self, run_id: str) -> list[dict[str, Any]]:
        out = await self._all("SELECT * FROM steps WHERE run_id = %s ORDER BY seq", (run_id,))
        for data in out:
            step_row(data)
        return out

    # -- recorded calls -------------------------------------------------------------------------
    async def record_call(self, source: str, seq: int | None, **fields: Any) -> None:
        """One successful action call; `seq` None appends it after the source's last call."""
        async with self.transaction() as db:
            if seq is None:
                # Two writers of one source append one after the other.
                await db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (source,))
                last = await (
                    await db.execute("SELECT MAX(seq) AS m FROM calls WHERE source = %s", (source,))
                ).fetchone()
                seq = 0 if last is None or last["m"] is None else int(last["m"]) + 1
            await _insert_call(db, source, seq, fields)

    async def calls(self, source: str) -> list[dict[str, Any]]:
        out = await self._all("SELECT * FROM calls WHERE source = %s ORDER BY seq", (source,))
        for data in out:
            data["args"] = load(data["args"])
        return out

    # -- artifacts ----------------------------------------------------------------------------
    async def insert_artifact(
        self, artifact_id: str, run_id: str, name: str, mime_type: str, size: int, sha256: str
    ) -> None:
        await self._execute(
            "INSERT INTO artifacts (artifact_id, run_id, name, mime_type, size, sha256, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (artifact_id, run_id, name, mime_type, size, sha256, time.time()),
        )

    async def artifact(self, artifact_id: str) -> dict[str, Any] | None:
        return await self._one("SELECT * FROM artifacts WHERE artifact_id = %s", (artifact_id,))

    async def artifacts_of(self, run_id: str) -> list[dict[str, Any]]:
        return await self._all(
            "SELECT * FROM artifacts WHERE run_id = %s ORDER BY created_at", (run_id,)
        )

    async def live_artifacts(self) -> list[dict[str, Any]]:
        return await self._all("SELECT * FROM artifacts WHERE expired = 0")

    async def mark_expired(self, artifact_id: str) -> None:
        await self._execute(
            "UPDATE artifacts SET expired = 1 WHERE artifact_id = %s", (artifact_id,)
        )

    def artifact_bytes(self, root: Path) -> PostgresStore:
        return self  # bytes in the database: every server reads them

    # ArtifactBytes, in the table artifact_data
    async def write(self, run_id: str, artifact_id: str, data: bytes) -> None:
        await self._execute(
            "INSERT INTO artifact_data (artifact_id, data) VALUES (%s, %s)", (artifact_id, data)
        )

    async def read(self, run_id: str, artifact_id: str, offset: int, limit: int | None) -> bytes:
        if limit is None:
            row = await self._one(
                "SELECT substring(data FROM %s) AS d FROM artifact_data WHERE artifact_id = %s",
                (offset + 1, artifact_id),
            )
        else:
            row = await self._one(
                "SELECT substring(data FROM %s FOR %s) AS d FROM artifact_data"
                " WHERE artifact_id = %s",
                (offset + 1, max(0, limit), artifact_id),
            )
        if row is None:
            raise FileNotFoundError(artifact_id)
        return bytes(row["d"])

    async def drop(self, run_id: str, artifact_id: str) -> None:
        await self._execute("DELETE FROM artifact_data WHERE artifact_id = %s", (artifact_id,))


# Every column of the tables written whole (SQLite's INSERT OR REPLACE: columns not given are null).
_COLUMNS = {
    "steps": (
        "step_id", "item_index", "action", "status", "attempts", "started_at", "ended_at",
        "args_preview", "result_preview", "error", "tab_id", "screenshot_artifact_id", "provider",
        "capability_level", "confirmation",
    ),
    "calls": ("step_id", "item_index", "action", "tab", "args", "opened_tab"),
}  # fmt: skip


async def _replace(
    db: psycopg.AsyncConnection[Any],
    table: str,
    keys: tuple[str, ...],
    key_values: tuple[Any, ...],
    fields: dict[str, Any],
) -> None:
    """The whole row anew in one statement (one round trip): an upsert of every column."""
    unknown = set(fields) - set(_COLUMNS[table])
    if unknown:
        raise ValueError(f"no column {sorted(unknown)} in {table}")
    columns = _COLUMNS[table]
    names = ", ".join([*keys, *columns])
    marks = ", ".join("%s" for _ in range(len(keys) + len(columns)))
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns)
    await db.execute(
        f"INSERT INTO {table} ({names}) VALUES ({marks})"
        f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}",
        (*key_values, *(fields.get(c) for c in columns)),
    )


async def _replace_many(
    db: psycopg.AsyncConnection[Any],
    table: str,
    keys: tuple[str, ...],
    rows: dict[tuple[str, int], dict[str, Any]],
) -> None:
    """Many whole rows in one round trip (psycopg pipelines executemany)."""
    columns = _COLUMNS[table]
    names = ", ".join([*keys, *columns])
    marks = ", ".join("%s" for _ in range(len(keys) + len(columns)))
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns)
    async with db.cursor() as cursor:
        await cursor.executemany(
            f"INSERT INTO {table} ({names}) VALUES ({marks})"
            f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}",
            [(*key, *(row.get(c) for c in columns)) for key, row in rows.items()],
        )


async def _insert_call(
    db: psycopg.AsyncConnection[Any], source: str, seq: int, call: dict[str, Any]
) -> None:
    await _replace(
        db, "calls", ("source", "seq"), (source, seq), {**call, "args": dump(call["args"])}
    )
