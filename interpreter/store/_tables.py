"""The run store's tables, each defined once, and the DDL of both dialects made from them:
SQLite's tables (made if missing, with their added columns on open) and PostgreSQL's numbered
migrations (`since`: the schema version that added a column or an index).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from .._principal import LOCAL

Dialect = Literal["sqlite", "postgresql"]
TYPES: dict[Dialect, dict[str, str]] = {
    "sqlite": {"text": "TEXT", "int": "INTEGER", "bigint": "INTEGER", "real": "REAL"},
    "postgresql": {
        "text": "TEXT",
        "int": "INTEGER",
        "bigint": "BIGINT",
        "real": "DOUBLE PRECISION",
    },
}


class Column(NamedTuple):
    name: str
    kind: str  # a key of TYPES' maps
    spec: str = ""  # NOT NULL, PRIMARY KEY, DEFAULT …
    since: int = 1

    def ddl(self, dialect: Dialect) -> str:
        return " ".join(part for part in (self.name, TYPES[dialect][self.kind], self.spec) if part)


class Table(NamedTuple):
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...] = ()  # a primary key of several columns
    since: int = 1  # the schema version that made the table


class TableIndex(NamedTuple):
    name: str
    table: str
    on: str
    since: int = 1


_NOT_NULL, _KEY = "NOT NULL", "PRIMARY KEY"
_PRINCIPAL = f"DEFAULT '{LOCAL}'"  # runs and artifacts made before principals: the local user's
TABLES = (
    Table(
        "runs",
        (
            Column("run_id", "text", _KEY),
            Column("template_id", "text", _NOT_NULL),
            Column("template_version", "text", _NOT_NULL),
            Column("status", "text", _NOT_NULL),
            Column("inputs", "text", _NOT_NULL),
            Column("options", "text", _NOT_NULL),
            Column("progress", "text", "NOT NULL DEFAULT '{}'"),
            Column("result", "text"),
            Column("error", "text"),
            Column("created_at", "real", _NOT_NULL),
            Column("updated_at", "real", _NOT_NULL),
            Column("started_at", "real"),
            Column("ended_at", "real"),
            Column("owner", "text"),
            Column("heartbeat_at", "real"),
            Column("cancel", "text"),
            Column("waiting", "text", since=2),  # a hand-over's reason, URL and screenshot
            Column("resume", "real", since=2),  # when resume_task_run asked a waiting run to go on
            Column("principal", "text", _PRINCIPAL, since=3),  # the caller that started it
        ),
    ),
    Table(
        "steps",
        (
            Column("run_id", "text", _NOT_NULL),
            Column("seq", "int", _NOT_NULL),
            Column("step_id", "text"),
            Column("item_index", "int"),
            Column("action", "text"),
            Column("status", "text", _NOT_NULL),
            Column("attempts", "int", _NOT_NULL),
            Column("started_at", "real"),
            Column("ended_at", "real"),
            Column("args_preview", "text"),
            Column("result_preview", "text"),
            Column("error", "text"),
            Column("tab_id", "text"),
            Column("screenshot_artifact_id", "text"),
            Column("provider", "text"),
            Column("capability_level", "text"),
            # a confirmation's question, answer and who answered
            Column("confirmation", "text", since=2),
            # where it ran: its path of ids with each loop item's index (pages[3]/open)
            Column("step_path", "text", since=4),
        ),
        key=("run_id", "seq"),
    ),
    Table(
        "artifacts",
        (
            Column("artifact_id", "text", _KEY),
            Column("run_id", "text", _NOT_NULL),
            Column("name", "text", _NOT_NULL),
            Column("mime_type", "text", _NOT_NULL),
            Column("size", "bigint", _NOT_NULL),
            Column("sha256", "text", _NOT_NULL),
            Column("created_at", "real", _NOT_NULL),
            Column("expired", "int", "NOT NULL DEFAULT 0"),
            Column("principal", "text", _PRINCIPAL, since=3),  # the caller that made it
        ),
    ),
    # every successful action call whole, for templates recorded from it: `source` is a run id
    # (its step executions, `seq` as in `steps`) or a session id (the browser tools called in
    # it); `tab` is null for the main tab, "new", or a tab id; a secret's value is stored as
    # {"$secret": true}, never in clear.
    Table(
        "calls",
        (
            Column("source", "text", _NOT_NULL),
            Column("seq", "int", _NOT_NULL),
            Column("step_id", "text"),
            Column("item_index", "int"),
            Column("action", "text", _NOT_NULL),
            Column("tab", "text"),
            Column("args", "text", _NOT_NULL),
            Column("opened_tab", "text"),
        ),
        key=("source", "seq"),
    ),
    # what a run has finished, to resume it elsewhere (`interpreter/_checkpoints.py`): `key` is
    # "step:<path>" (a step outside any item, not a loop: its whole output), "item:<loop path>:<index>"
    # (an outermost loop's item: its result and what it enqueued) or "act:<placed path>" (an
    # L1/L2 step started); `value` is JSON with secrets masked, or null when the value is the
    # artifact `artifact_id` (large); `seq` orders them as they were written.
    Table(
        "checkpoints",
        (
            Column("run_id", "text", _NOT_NULL, since=5),
            Column("key", "text", _NOT_NULL, since=5),
            Column("seq", "int", _NOT_NULL, since=5),
            Column("value", "text", since=5),
            Column("artifact_id", "text", since=5),
        ),
        key=("run_id", "key"),
        since=5,
    ),
    # what happened to a run besides its steps, in order: handed over by a server that stopped
    # (`released`), resumed by another (`resumed`, with the items it runs again); `detail`
    # is JSON.
    Table(
        "run_events",
        (
            Column("run_id", "text", _NOT_NULL, since=6),
            Column("at", "real", _NOT_NULL, since=6),
            Column("kind", "text", _NOT_NULL, since=6),
            Column("server", "text", since=6),
            Column("detail", "text", since=6),
        ),
        since=6,
    ),
)
INDEXES = (
    TableIndex("runs_by_created", "runs", "created_at DESC"),
    TableIndex("artifacts_by_run", "artifacts", "run_id"),
    TableIndex("runs_by_principal", "runs", "principal, created_at DESC", since=3),
    TableIndex("run_events_by_run", "run_events", "run_id, at", since=6),
)

NEWEST = max([i.since for i in INDEXES] + [c.since for t in TABLES for c in t.columns])


def create_tables(dialect: Dialect, version: int) -> list[str]:
    """The statements that make the tables as they were at `version` (their indexes apart)."""
    missing = "IF NOT EXISTS " if dialect == "sqlite" else ""
    made = []
    for table in TABLES:
        if table.since > version:
            continue
        lines = [c.ddl(dialect) for c in table.columns if c.since <= version]
        if table.key:
            lines.append(f"PRIMARY KEY ({', '.join(table.key)})")
        made.append(f"CREATE TABLE {missing}{table.name} (\n    " + ",\n    ".join(lines) + "\n)")
    return made


def create_indexes(dialect: Dialect, version: int) -> list[str]:
    """The statements that make the indexes there were at `version`."""
    return [create_index(i, dialect) for i in INDEXES if i.since <= version]


def create_index(index: TableIndex, dialect: Dialect) -> str:
    missing = "IF NOT EXISTS " if dialect == "sqlite" else ""
    return f"CREATE INDEX {missing}{index.name} ON {index.table} ({index.on})"


def added_since(dialect: Dialect, version: int) -> list[str]:
    """The statements that bring the tables and indexes from `version` - 1 to `version`."""
    made = [t for t in TABLES if t.since == version]
    added = [s for s in create_tables(dialect, version) if any(f" {t.name} (" in s for t in made)]
    added += [
        f"ALTER TABLE {table.name} ADD COLUMN {column.ddl(dialect)}"
        for table in TABLES
        if table.since < version
        for column in table.columns
        if column.since == version
    ]
    return added + [create_index(i, dialect) for i in INDEXES if i.since == version]


def addable(table: Table) -> list[Column]:
    """The columns an older store may lack and can be given (`ADD COLUMN` takes no key or NOT NULL)."""
    return [c for c in table.columns if _KEY not in c.spec and _NOT_NULL not in c.spec]
