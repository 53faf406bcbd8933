"""`open_store`: the run store a URL names, PostgreSQL or else SQLite in the data home. Apart
from the interface (`_interface`), which the backends import, so no backend imports its factory.
"""

from __future__ import annotations

import os
from pathlib import Path

from taskplate.contract import ErrorCode, TaskplateError

from ._interface import STORE_ENV, Store


def store_url(given: str | None = None) -> str | None:
    """The store named by `--store` or TASKPLATE_STORE; None for the SQLite default."""
    return given or os.environ.get(STORE_ENV) or None


def open_store(home: Path, url: str | None = None) -> Store:
    """The run store: `url` (or TASKPLATE_STORE) `postgresql://…`, else SQLite in the home.
    SQLite is open at once; PostgreSQL connects on `await store.open()` (or `async with`)."""
    url = store_url(url)
    if url is None:
        from ._sqlite import RunStore

        return RunStore(home / "runs.db")
    if url.startswith(("postgresql://", "postgres://")):
        try:
            from ._postgres import PostgresStore
        except ImportError:
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                "the PostgreSQL store needs psycopg, which is not installed",
                "pip install 'taskplate[postgres]' (psycopg 3), then start again.",
            ) from None
        return PostgresStore(url)
    raise TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        f"{STORE_ENV} (or --store) must be a postgresql:// URL, not {url.split(':')[0]!r}",
        "Give postgresql://user@host:port/database, or leave it unset for SQLite in the data home.",
    )
