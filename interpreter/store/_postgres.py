"""The PostgreSQL run store (`TASKPLATE_STORE=postgresql://…`): the same rows as the SQLite store,
artifact bytes included (bytea), shared by every server on the database. Rows only; no run logic.

The schema is made and migrated by `_store_postgres_schema.py`, under an advisory lock.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import anyio
import psycopg
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from taskplate.contract import ErrorCode, TaskplateError

from ._postgres_schema import migrate
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

FLUSH_ROWS = 200  # kept-back step rows written in one go at most
POOL_SIZE = 4  # connections per process: a transaction holds one, other calls go on beside it
CANCELS = (
    "taskplate_cancel"  # the channel a cancel request is announced on: "force|cooperative runId"
)
RELISTEN_S = (
    1.0  # a listening connection lost is made again after this (the flags are read meanwhile)
)
_ADMIT_LOCK = 0x706C6174  # advisory lock key, 'plat': admission (migrations take 'task')

Connection = psycopg.AsyncConnection[dict[str, Any]]

log = logging.getLogger("taskplate.store")

_SQL = Statements("%s", same="IS NOT DISTINCT FROM", differs="IS DISTINCT FROM")


def _shown(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


class PostgresStore(SqlStore):
    """A small pool of async connections per process (autocommit; each write one statement or
    a short transaction). No call blocks the event loop on the database."""

    def __init__(self, url: str, connect_timeout_s: int = 10) -> None:
        self.url = url
        self.description = _shown(url)
        self.connect_timeout_s = connect_timeout_s
        self.sql = _SQL
        self.releases = ReleaseStatements("%s")
        self._steps: dict[tuple[str, int], tuple[Any, ...]] = {}  # rows kept back until `flush`
        self._calls: dict[tuple[str, int], tuple[Any, ...]] = {}
        self._progress: dict[str, dict[str, Any]] = {}
        self._checkpoints: dict[tuple[str, str], tuple[Any, ...]] = {}
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

        Step rows are the hot path (two per step): they wait here at most FLUSH_S (the run
        manager flushes that often), and every other call of this store flushes first, waiting
        for a flush under way, so this process reads its own writes in order; other processes
        see a step at most FLUSH_S (or the next call) late."""
        if not self._kept() and not self._flushing.locked():
            return
        async with self._flushing:
            if not self._kept():
                return
            steps, calls, progress = self._steps, self._calls, self._progress
            checkpoints = self._checkpoints
            self._steps, self._calls, self._progress, self._checkpoints = {}, {}, {}, {}
            pool = await self._ready()
            # psycopg pipelines executemany: one round trip
            async with pool.connection() as db, db.transaction(), db.cursor() as cursor:
                if steps:
                    await cursor.executemany(self.sql.replace("steps"), list(steps.values()))
                if calls:
                    await cursor.executemany(self.sql.replace("calls"), list(calls.values()))
                if checkpoints:
                    await cursor.executemany(
                        self.sql.replace("checkpoints"), list(checkpoints.values())
                    )
                if progress:
                    await cursor.executemany(
                        self.sql.update_run(["progress", "updated_at"]),
                        [(*run_fields({"progress": p}).values(), r) for r, p in progress.items()],
                    )

    def _kept(self) -> bool:
        return bool(self._steps or self._calls or self._progress or self._checkpoints)

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

    def keep_progress(self, run_id: str, progress: dict[str, Any]) -> None:
        self._progress[run_id] = progress  # a later progress replaces it

    async def request_cancel(self, run_id: str, force: bool) -> None:
        """The flag set, then announced (NOTIFY): the run's owner, on any server, acts at once,
        where reading the flags took it up to its watch's interval."""
        await super().request_cancel(run_id, force)
        kind = "force" if force else "cooperative"
        await self._execute("SELECT pg_notify(%s, %s)", (CANCELS, f"{kind} {run_id}"))

    async def listen_cancels(self, heard: Callable[[str, bool], None]) -> None:
        """LISTEN on a connection of its own (a pooled one would go back with it); one that is
        lost is opened again after RELISTEN_S, the flags read meanwhile by the manager's watch."""
        while True:
            try:
                db = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, connect_timeout=self.connect_timeout_s
                )
            except psycopg.Error as exc:
                log.warning("cannot listen for cancel requests: %s", str(exc).strip())
                await anyio.sleep(RELISTEN_S)
                continue
            try:
                await db.execute(f"LISTEN {CANCELS}")
                async for notice in db.notifies():
                    kind, _, run_id = notice.payload.partition(" ")
                    heard(run_id, kind == "force")
            except psycopg.Error as exc:
                log.warning("listening for cancel requests stopped: %s", str(exc).strip())
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                    await db.close()
            await anyio.sleep(RELISTEN_S)

    async def start_next(
        self,
        owner: str,
        limit: int,
        alive_since: float,
        share: Callable[[str | None], int | None],
    ) -> str | None:
        async with self.transaction() as db:
            # One admission at a time across every server on the store.
            await db.execute("SELECT pg_advisory_xact_lock(%s)", (_ADMIT_LOCK,))
            rows = await (await db.execute(self.sql.holding)).fetchall()
            holding = {r["principal"]: int(r["n"]) for r in rows}
            heads = await (await db.execute(self.sql.queued_heads, (alive_since, owner))).fetchall()
            chosen = next_to_start(holding, list(heads), limit, share)
            if chosen is None or chosen["owner"] != owner:
                return None
            now = time.time()
            started = (await db.execute(self.sql.start, (now, now, chosen["run_id"]))).rowcount
            return str(chosen["run_id"]) if started == 1 else None

    # -- steps and kept calls -------------------------------------------------------------
    async def write_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """A step execution, and with `call` the whole call too (one transaction for both)."""
        self.keep_step(run_id, seq, call, **fields)
        if len(self._steps) >= FLUSH_ROWS:
            await self.flush()

    def keep_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        # a later record of the step replaces it whole
        self._steps[(run_id, seq)] = whole_row("steps", (run_id, seq), step_fields(fields))
        if call is not None:
            self._calls[(run_id, seq)] = whole_row("calls", (run_id, seq), call_fields(call))

    def keep_checkpoint(
        self, run_id: str, key: str, seq: int, value: str | None, artifact_id: str | None = None
    ) -> None:
        self._checkpoints[(run_id, key)] = (run_id, key, seq, value, artifact_id)

    async def keep_call(self, source: str, seq: int | None, **fields: Any) -> None:
        """One successful action call; `seq` None appends it after the source's last call."""
        async with self.transaction() as db:
            if seq is None:
                # Two writers of one source append one after the other.
                await db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (source,))
                last = await (await db.execute(self.sql.last_call, (source,))).fetchone()
                seq = 0 if last is None or last["m"] is None else int(last["m"]) + 1
            row = whole_row("calls", (source, seq), call_fields(fields))
            await db.execute(self.sql.replace("calls"), row)

    # -- artifact bytes (ArtifactBytes), in the table artifact_data ---------------------------
    def artifact_bytes(self, root: Path) -> PostgresStore:
        return self  # bytes in the database: every server reads them

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
