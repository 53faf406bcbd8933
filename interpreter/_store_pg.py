"""The PostgreSQL run store (`TASKPLATE_STORE=postgresql://…`): the same rows as the SQLite store,
artifact bytes included (bytea), shared by every server on the database. Rows only; no run logic.

The schema is created and migrated here, one numbered step at a time, under an advisory lock.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg.rows import dict_row

from taskplate.dsl import ErrorCode, TaskplateError

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
FLUSH_S = 0.05  # how long step records may wait to be written together
FLUSH_ROWS = 200
_ACTIVE_SQL = "('queued', 'running', 'waiting_for_human')"
_MIGRATE_LOCK = 0x7461736B  # advisory lock keys: 'task' for migrations, 'plat' for admission
_ADMIT_LOCK = 0x706C6174


def _shown(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def migrate(db: psycopg.Connection[Any]) -> int:
    """Bring the schema to SCHEMA_VERSION; answers the version found before."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
        db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = db.execute("SELECT max(version) AS v FROM schema_version").fetchone()
        found = int(row["v"]) if row and row["v"] is not None else 0
        if found > SCHEMA_VERSION:
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"the store's schema is version {found}; this taskplate knows up to {SCHEMA_VERSION}",
                "Upgrade taskplate on this host to the version the other servers run.",
            )
        for version in range(found, SCHEMA_VERSION):
            db.execute(MIGRATIONS[version])
            db.execute("INSERT INTO schema_version (version) VALUES (%s)", (version + 1,))
        return found


class PostgresStore:
    """One connection per process (autocommit; each write a short transaction)."""

    def __init__(self, url: str, connect_timeout_s: int = 10) -> None:
        self.description = _shown(url)
        self._steps: dict[tuple[str, int], dict[str, Any]] = {}  # kept back until `flush`
        self._calls: dict[tuple[str, int], dict[str, Any]] = {}
        self._since = 0.0
        try:
            self.db: psycopg.Connection[dict[str, Any]] = psycopg.connect(
                url, autocommit=True, row_factory=dict_row, connect_timeout=connect_timeout_s
            )
        except psycopg.Error as exc:
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"cannot open the run store {self.description}: {str(exc).strip()}",
                "Check TASKPLATE_STORE (or --store): the server must run and accept this user.",
            ) from None
        try:
            migrate(self.db)
        except BaseException:
            self.db.close()
            raise

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        self.flush()
        with self.db.transaction():
            yield self.db

    def _execute(self, query: Any, params: tuple[Any, ...] = ()) -> psycopg.Cursor[dict[str, Any]]:
        self.flush()
        return self.db.execute(query, params)

    def flush(self) -> None:
        """Write the step records kept back, in one transaction of one round trip or two.

        Step records are the hot path (two per step): they wait here at most FLUSH_S, and
        every other call of this store writes them first, so this process reads its own
        writes in order; other processes see a step at most FLUSH_S (or the next call) late."""
        if not self._steps and not self._calls:
            return
        steps, calls = self._steps, self._calls
        self._steps, self._calls = {}, {}
        with self.db.transaction():
            if steps:
                _replace_many(self.db, "steps", ("run_id", "seq"), steps)
            if calls:
                _replace_many(self.db, "calls", ("source", "seq"), calls)

    def close(self) -> None:
        """Idempotent; the store is unusable afterwards. Writes what is kept back first."""
        if not self.db.closed:
            try:
                self.flush()
            finally:
                self.db.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _all(self, query: Any, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        return self._execute(query, params).fetchall()

    def _one(self, query: Any, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        return self._execute(query, params).fetchone()

    # -- runs ---------------------------------------------------------------------------------
    def insert_run(
        self,
        run_id: str,
        template_id: str,
        version: str,
        inputs: dict[str, Any],
        options: dict[str, Any],
        owner: str,
    ) -> None:
        now = time.time()
        self._execute(
            "INSERT INTO runs (run_id, template_id, template_version, status, inputs, options,"
            " created_at, updated_at, owner, heartbeat_at)"
            " VALUES (%s, %s, %s, 'queued', %s, %s, %s, %s, %s, %s)",
            (run_id, template_id, version, dump(inputs), dump(options), now, now, owner, now),
        )

    def run(self, run_id: str) -> RunRow | None:
        row = self._one("SELECT * FROM runs WHERE run_id = %s", (run_id,))
        return run_row(row) if row else None

    def update_run(self, run_id: str, **fields: Any) -> None:
        """Set fields of a run that is not terminal yet (terminal states never change)."""
        encoded = run_fields(fields)
        encoded["updated_at"] = time.time()
        assignments = ", ".join(f"{k} = %s" for k in encoded)
        self._execute(
            f"UPDATE runs SET {assignments} WHERE run_id = %s AND status <> ALL(%s)",
            (*encoded.values(), run_id, list(TERMINAL)),
        )

    def list_runs(
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
        total = self._one(f"SELECT COUNT(*) AS n FROM runs {clause}", tuple(params))
        rows = self._all(
            f"SELECT * FROM runs {clause} ORDER BY created_at DESC LIMIT %s OFFSET %s",
            (*params, limit, offset),
        )
        return [run_row(r) for r in rows], int(total["n"] if total else 0)

    def request_cancel(self, run_id: str, force: bool) -> None:
        self._execute(
            "UPDATE runs SET cancel = %s, updated_at = %s WHERE run_id = %s"
            f" AND status IN {_ACTIVE_SQL}",
            ("force" if force else "cooperative", time.time(), run_id),
        )

    def request_resume(self, run_id: str) -> bool:
        """Ask a run waiting for a person to go on; False when it is not waiting."""
        now = time.time()
        done = self._execute(
            "UPDATE runs SET resume = %s, updated_at = %s WHERE run_id = %s"
            " AND status = 'waiting_for_human'",
            (now, now, run_id),
        )
        return done.rowcount == 1

    def resume_flag(self, run_id: str) -> float | None:
        row = self._one("SELECT resume FROM runs WHERE run_id = %s", (run_id,))
        return row["resume"] if row else None

    def cancel_flag(self, run_id: str) -> str | None:
        row = self._one("SELECT cancel FROM runs WHERE run_id = %s", (run_id,))
        return row["cancel"] if row else None

    def heartbeat(self, owner: str) -> None:
        self._execute(
            f"UPDATE runs SET heartbeat_at = %s WHERE owner = %s AND status IN {_ACTIVE_SQL}",
            (time.time(), owner),
        )

    def active_of_others(self, me: str) -> list[RunRow]:
        rows = self._all(
            f"SELECT * FROM runs WHERE status IN {_ACTIVE_SQL} AND owner IS DISTINCT FROM %s",
            (me,),
        )
        return [run_row(r) for r in rows]

    def claim(self, run_id: str, previous_owner: str | None, me: str) -> bool:
        """Take over a queued run of a dead owner; True when this process got it."""
        now = time.time()
        done = self._execute(
            "UPDATE runs SET owner = %s, heartbeat_at = %s, updated_at = %s WHERE run_id = %s"
            " AND owner IS NOT DISTINCT FROM %s AND status = 'queued'",
            (me, now, now, run_id, previous_owner),
        )
        return done.rowcount == 1

    def start_if_free(self, run_id: str, limit: int, alive_since: float) -> bool:
        with self.transaction() as db:
            # One admission at a time across every server on the store.
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_ADMIT_LOCK,))
            running = db.execute(
                "SELECT COUNT(*) AS n FROM runs WHERE status IN ('running', 'waiting_for_human')"
            )
            if (running.fetchone() or {"n": 0})["n"] >= limit:
                return False
            first = db.execute(
                "SELECT run_id FROM runs WHERE status = 'queued' AND cancel IS NULL"
                " AND (heartbeat_at >= %s OR run_id = %s) ORDER BY created_at, run_id LIMIT 1",
                (alive_since, run_id),
            ).fetchone()
            if first is None or first["run_id"] != run_id:
                return False
            now = time.time()
            done = db.execute(
                "UPDATE runs SET status = 'running', started_at = %s, updated_at = %s"
                " WHERE run_id = %s AND status = 'queued'",
                (now, now, run_id),
            )
            return done.rowcount == 1

    # -- steps --------------------------------------------------------------------------------
    def record_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """A step execution, and with `call` the whole call too (one transaction for both)."""
        fields = step_fields(fields)
        unknown = set(fields) - set(_COLUMNS["steps"])
        if unknown:
            raise ValueError(f"no column {sorted(unknown)} in steps")
        if not self._steps:
            self._since = time.monotonic()
        self._steps[(run_id, seq)] = fields  # a later record of the step replaces it whole
        if call is not None:
            self._calls[(run_id, seq)] = {**call, "args": dump(call["args"])}
        if time.monotonic() - self._since >= FLUSH_S or len(self._steps) >= FLUSH_ROWS:
            self.flush()

    def steps(self, run_id: str) -> list[dict[str, Any]]:
        out = self._all("SELECT * FROM steps WHERE run_id = %s ORDER BY seq", (run_id,))
        for data in out:
            step_row(data)
        return out

    # -- recorded calls -------------------------------------------------------------------------
    def record_call(self, source: str, seq: int | None, **fields: Any) -> None:
        """One successful action call; `seq` None appends it after the source's last call."""
        with self.transaction() as db:
            if seq is None:
                # Two writers of one source append one after the other.
                db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (source,))
                last = db.execute(
                    "SELECT MAX(seq) AS m FROM calls WHERE source = %s", (source,)
                ).fetchone()
                seq = 0 if last is None or last["m"] is None else int(last["m"]) + 1
            _insert_call(db, source, seq, fields)

    def calls(self, source: str) -> list[dict[str, Any]]:
        out = self._all("SELECT * FROM calls WHERE source = %s ORDER BY seq", (source,))
        for data in out:
            data["args"] = load(data["args"])
        return out

    # -- artifacts ----------------------------------------------------------------------------
    def insert_artifact(
        self, artifact_id: str, run_id: str, name: str, mime_type: str, size: int, sha256: str
    ) -> None:
        self._execute(
            "INSERT INTO artifacts (artifact_id, run_id, name, mime_type, size, sha256, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (artifact_id, run_id, name, mime_type, size, sha256, time.time()),
        )

    def artifact(self, artifact_id: str) -> dict[str, Any] | None:
        return self._one("SELECT * FROM artifacts WHERE artifact_id = %s", (artifact_id,))

    def artifacts_of(self, run_id: str) -> list[dict[str, Any]]:
        return self._all("SELECT * FROM artifacts WHERE run_id = %s ORDER BY created_at", (run_id,))

    def live_artifacts(self) -> list[dict[str, Any]]:
        return self._all("SELECT * FROM artifacts WHERE expired = 0")

    def mark_expired(self, artifact_id: str) -> None:
        self._execute("UPDATE artifacts SET expired = 1 WHERE artifact_id = %s", (artifact_id,))

    def artifact_bytes(self, root: Path) -> PostgresStore:
        return self  # bytes in the database: every server reads them

    # ArtifactBytes, in the table artifact_data
    def write(self, run_id: str, artifact_id: str, data: bytes) -> None:
        self._execute(
            "INSERT INTO artifact_data (artifact_id, data) VALUES (%s, %s)", (artifact_id, data)
        )

    def read(self, run_id: str, artifact_id: str, offset: int, limit: int | None) -> bytes:
        if limit is None:
            row = self._one(
                "SELECT substring(data FROM %s) AS d FROM artifact_data WHERE artifact_id = %s",
                (offset + 1, artifact_id),
            )
        else:
            row = self._one(
                "SELECT substring(data FROM %s FOR %s) AS d FROM artifact_data"
                " WHERE artifact_id = %s",
                (offset + 1, max(0, limit), artifact_id),
            )
        if row is None:
            raise FileNotFoundError(artifact_id)
        return bytes(row["d"])

    def drop(self, run_id: str, artifact_id: str) -> None:
        self._execute("DELETE FROM artifact_data WHERE artifact_id = %s", (artifact_id,))


# Every column of the tables written whole (SQLite's INSERT OR REPLACE: columns not given are null).
_COLUMNS = {
    "steps": (
        "step_id", "item_index", "action", "status", "attempts", "started_at", "ended_at",
        "args_preview", "result_preview", "error", "tab_id", "screenshot_artifact_id", "provider",
        "capability_level", "confirmation",
    ),
    "calls": ("step_id", "item_index", "action", "tab", "args", "opened_tab"),
}  # fmt: skip


def _replace(
    db: psycopg.Connection[Any],
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
    db.execute(
        f"INSERT INTO {table} ({names}) VALUES ({marks})"
        f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}",
        (*key_values, *(fields.get(c) for c in columns)),
    )


def _replace_many(
    db: psycopg.Connection[Any],
    table: str,
    keys: tuple[str, ...],
    rows: dict[tuple[str, int], dict[str, Any]],
) -> None:
    """Many whole rows in one round trip (psycopg pipelines executemany)."""
    columns = _COLUMNS[table]
    names = ", ".join([*keys, *columns])
    marks = ", ".join("%s" for _ in range(len(keys) + len(columns)))
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns)
    with db.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {table} ({names}) VALUES ({marks})"
            f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}",
            [(*key, *(row.get(c) for c in columns)) for key, row in rows.items()],
        )


def _insert_call(db: psycopg.Connection[Any], source: str, seq: int, call: dict[str, Any]) -> None:
    _replace(db, "calls", ("source", "seq"), (source, seq), {**call, "args": dump(call["args"])})
