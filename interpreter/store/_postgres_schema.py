"""The PostgreSQL run store's schema: each numbered migration that made it, and `migrate`, which
brings a database to the newest under an advisory lock. Tables only; the store's statements are
`_store_sql.py`'s, its connections `_store_postgres.py`'s.
"""

from __future__ import annotations

from typing import Any

import psycopg

from taskplate.contract import ErrorCode, TaskplateError

from .._principal import LOCAL

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
    # 3: the caller that started a run, and made an artifact (runs before it: the local user's).
    f"""
    ALTER TABLE runs ADD COLUMN principal TEXT DEFAULT '{LOCAL}';
    ALTER TABLE artifacts ADD COLUMN principal TEXT DEFAULT '{LOCAL}';
    CREATE INDEX runs_by_principal ON runs (principal, created_at DESC);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
_MIGRATE_LOCK = 0x7461736B  # advisory lock key, 'task': migrations (admission takes 'plat')


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
