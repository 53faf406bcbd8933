"""The PostgreSQL run store's schema: each numbered migration that made it, and `migrate`, which
brings a database to the newest under an advisory lock. Tables only; the store's statements are
`_sql.py`'s, its connections `_postgres.py`'s; its tables `_tables.py`'s.
"""

from __future__ import annotations

from typing import Any

import psycopg

from taskplate.contract import ErrorCode, TaskplateError

from ._tables import added_since, create_indexes, create_tables

# Each entry brings the schema from version i to i + 1: the tables' columns and indexes of that
# version (`_tables`), and what PostgreSQL alone has. A shipped entry's meaning never changes.
_RUNS_ACTIVE = "CREATE INDEX runs_active ON runs (status) WHERE status IN ({})"
MIGRATIONS: tuple[str, ...] = tuple(
    ";\n".join(statements)
    for statements in (
        [
            *create_tables("postgresql", 1),
            *create_indexes("postgresql", 1),
            _RUNS_ACTIVE.format("'queued', 'running'"),
            "CREATE TABLE artifact_data (artifact_id TEXT PRIMARY KEY, data BYTEA NOT NULL)",
        ],
        # 2: confirmations in step rows; a hand-over's wait and resume request on the run.
        [
            *added_since("postgresql", 2),
            "DROP INDEX runs_active",
            _RUNS_ACTIVE.format("'queued', 'running', 'waiting_for_human'"),
        ],
        # 3: the caller that started a run, and made an artifact (runs before it: the local user's).
        added_since("postgresql", 3),
        # 4: where a step ran (its path of ids with each item's index).
        added_since("postgresql", 4),
        # 5: checkpoints, what a run finished, to resume it on another server.
        added_since("postgresql", 5),
        # 6: a run's events: handed over by a server that stopped, resumed by another.
        added_since("postgresql", 6),
    )
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
