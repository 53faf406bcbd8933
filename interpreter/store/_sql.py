"""The run store's rows as both SQL backends keep them, written once: the statements (with the
backend's placeholder), the JSON columns, the status filters, and every call that is one statement.

No connection of its own: a backend (`_store_sqlite`, `_store_postgres`) runs the statements its
way (`_execute`, `_one`, `_all`) and keeps its transactions, kept-back writes and bytes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from ._interface import RunRow
from ._release import ReleaseRows, ReleaseStatements

TERMINAL = ("succeeded", "failed", "partial_success", "canceled")
_TERMINAL_SQL = "(" + ", ".join(f"'{s}'" for s in TERMINAL) + ")"
_ACTIVE_SQL = "('queued', 'running', 'waiting_for_human')"

# Columns kept as JSON text, written and read the same way by every backend.
RUN_JSON = ("inputs", "options", "progress", "result", "error", "waiting")
STEP_JSON = ("error", "confirmation")
# Every column of the tables written whole (a record replaces the row: columns not given are null).
COLUMNS = {
    "steps": (
        "step_id", "item_index", "action", "status", "attempts", "started_at", "ended_at",
        "args_preview", "result_preview", "error", "tab_id", "screenshot_artifact_id", "provider",
        "capability_level", "confirmation", "step_path",
    ),
    "calls": ("step_id", "item_index", "action", "tab", "args", "opened_tab"),
    "checkpoints": ("seq", "value", "artifact_id"),
}  # fmt: skip
KEYS = {"steps": ("run_id", "seq"), "calls": ("source", "seq"), "checkpoints": ("run_id", "key")}


def dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def run_row(data: dict[str, Any]) -> RunRow:
    """A `runs` row as a RunRow, its JSON columns read."""
    data = dict(data)
    for key in RUN_JSON:
        data[key] = load(data.get(key))
    return RunRow(**data)


def run_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Fields of a `runs` update, its JSON columns written, the time of the update added."""
    return {
        **{k: dump(v) if k in RUN_JSON else v for k, v in fields.items()},
        "updated_at": time.time(),
    }


def step_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Fields of a `steps` record, its JSON columns written (`error` always, as null or text)."""
    fields["error"] = fields.get("error")
    return {k: dump(v) if k in STEP_JSON else v for k, v in fields.items()}


def step_row(data: dict[str, Any]) -> dict[str, Any]:
    """A `steps` row with its JSON columns read."""
    return {**data, **{key: load(data.get(key)) for key in STEP_JSON}}


def call_fields(call: dict[str, Any]) -> dict[str, Any]:
    """A kept call as its `calls` row keeps it (the arguments as JSON)."""
    return {**call, "args": dump(call["args"])}


def call_row(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "args": load(data["args"])}


def whole_row(table: str, key: tuple[Any, ...], fields: dict[str, Any]) -> tuple[Any, ...]:
    """The values of `replace(table)`: the key, then every column (null where not given)."""
    unknown = set(fields) - set(COLUMNS[table])
    if unknown:
        raise ValueError(f"no column {sorted(unknown)} in {table}")
    return (*key, *(fields.get(c) for c in COLUMNS[table]))


def next_to_start(
    holding: dict[str | None, int],
    heads: list[dict[str, Any]],
    limit: int,
    share: Callable[[str | None], int | None],
) -> dict[str, Any] | None:
    """The queued run to start next, of `heads` (each principal's oldest queued run): none when
    `limit` runs hold slots on the store; else among principals under their `share` of slots,
    the one holding fewest first, then the oldest run. So a principal at its share, or with a
    long queue, never holds back another's run."""
    if sum(holding.values()) >= limit:
        return None

    def under_share(head: dict[str, Any]) -> bool:
        most = share(head["principal"])
        return most is None or holding.get(head["principal"], 0) < most

    return min(
        filter(under_share, heads),
        key=lambda h: (holding.get(h["principal"], 0), h["created_at"], h["run_id"]),
        default=None,
    )


class Statements:
    """Every statement of the run store, with the backend's placeholder (`?`, `%s`) and its way
    of comparing with a null owner (SQLite's `IS`, the standard's `IS NOT DISTINCT FROM`)."""

    def __init__(self, p: str, same: str, differs: str) -> None:
        self.p = p
        self.insert_run = (
            "INSERT INTO runs (run_id, template_id, template_version, status, inputs, options,"
            " created_at, updated_at, owner, heartbeat_at, principal)"
            f" VALUES ({p}, {p}, {p}, 'queued', {p}, {p}, {p}, {p}, {p}, {p}, {p})"
        )
        self.run = f"SELECT * FROM runs WHERE run_id = {p}"
        self.request_cancel = (
            f"UPDATE runs SET cancel = {p}, updated_at = {p} WHERE run_id = {p}"
            f" AND status IN {_ACTIVE_SQL}"
        )
        self.request_resume = (
            f"UPDATE runs SET resume = {p}, updated_at = {p} WHERE run_id = {p}"
            " AND status = 'waiting_for_human'"
        )
        self.resume_flag = f"SELECT resume FROM runs WHERE run_id = {p}"
        self.cancel_flag = f"SELECT cancel FROM runs WHERE run_id = {p}"
        self.heartbeat = (
            f"UPDATE runs SET heartbeat_at = {p} WHERE owner = {p} AND status IN {_ACTIVE_SQL}"
        )
        self.active_of_others = (
            f"SELECT * FROM runs WHERE status IN {_ACTIVE_SQL} AND owner {differs} {p}"
        )
        self.claim = (
            f"UPDATE runs SET owner = {p}, heartbeat_at = {p}, updated_at = {p} WHERE run_id = {p}"
            f" AND owner {same} {p} AND status = 'queued'"
        )
        # a running run of a dead owner taken over: only while `previous_owner` still holds it,
        # so of two servers adopting at once exactly one changes the row
        self.adopt = (
            f"UPDATE runs SET owner = {p}, heartbeat_at = {p}, updated_at = {p}"
            f" WHERE run_id = {p} AND owner {same} {p} AND status IN ('running', 'waiting_for_human')"
        )
        self.checkpoints = (
            f"SELECT key, seq, value, artifact_id FROM checkpoints WHERE run_id = {p} ORDER BY seq"
        )
        # start_next, in the backend's one transaction: the runs holding slots per principal,
        # then each principal's oldest queued run of a live owner (`next_to_start` picks one)
        self.holding = (
            "SELECT principal, COUNT(*) AS n FROM runs"
            " WHERE status IN ('running', 'waiting_for_human') GROUP BY principal"
        )
        self.queued_heads = (
            "SELECT run_id, principal, owner, created_at FROM (SELECT run_id, principal, owner,"
            " created_at, ROW_NUMBER() OVER (PARTITION BY principal ORDER BY created_at, run_id)"
            " AS k FROM runs WHERE status = 'queued' AND cancel IS NULL"
            f" AND (heartbeat_at >= {p} OR owner = {p})) AS heads WHERE k = 1"
        )
        self.queued_of = (
            f"SELECT COUNT(*) AS n FROM runs WHERE status = 'queued' AND principal {same} {p}"
        )
        self.start = (
            f"UPDATE runs SET status = 'running', started_at = {p}, updated_at = {p}"
            f" WHERE run_id = {p} AND status = 'queued'"
        )
        self.steps = f"SELECT * FROM steps WHERE run_id = {p} ORDER BY seq"
        self.last_call = f"SELECT MAX(seq) AS m FROM calls WHERE source = {p}"
        self.calls = f"SELECT * FROM calls WHERE source = {p} ORDER BY seq"
        self.insert_artifact = (
            "INSERT INTO artifacts (artifact_id, run_id, name, mime_type, size, sha256, created_at,"
            f" principal) VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, {p})"
        )
        self.artifact = f"SELECT * FROM artifacts WHERE artifact_id = {p}"
        self.artifacts_of = f"SELECT * FROM artifacts WHERE run_id = {p} ORDER BY created_at"
        self.live_artifacts = "SELECT * FROM artifacts WHERE expired = 0"
        self.mark_expired = f"UPDATE artifacts SET expired = 1 WHERE artifact_id = {p}"

    def update_run(self, columns: list[str]) -> str:
        """Set columns of a run that is not terminal yet (terminal states never change)."""
        assignments = ", ".join(f"{c} = {self.p}" for c in columns)
        return f"UPDATE runs SET {assignments} WHERE run_id = {self.p} AND status NOT IN {_TERMINAL_SQL}"

    def replace(self, table: str) -> str:
        """The whole row of `steps` or `calls` anew, in one statement (an upsert of every column)."""
        keys, columns = KEYS[table], COLUMNS[table]
        marks = ", ".join(self.p for _ in range(len(keys) + len(columns)))
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns)
        return (
            f"INSERT INTO {table} ({', '.join([*keys, *columns])}) VALUES ({marks})"
            f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}"
        )

    def list_runs(
        self, status: str | None, template_id: str | None, principal: str | None
    ) -> tuple[str, str, tuple[Any, ...]]:
        """(count, page, the filters' values): the page takes limit and offset after them.
        `principal`: only the runs it started (None: every run)."""
        where, params = [], []
        if principal is not None:
            where.append(f"principal = {self.p}")
            params.append(principal)
        if status:
            where.append(f"status = {self.p}")
            params.append(status)
        if template_id:
            where.append(f"template_id = {self.p}")
            params.append(template_id)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        return (
            f"SELECT COUNT(*) AS n FROM runs {clause}",
            f"SELECT * FROM runs {clause} ORDER BY created_at DESC LIMIT {self.p} OFFSET {self.p}",
            tuple(params),
        )

    def runs_before(self, principal: str | None) -> str:
        """Runs older than a (created_at, run_id) seen, newest first: a keyset page (the
        values: [principal,] created_at twice, run_id, limit)."""
        p = self.p
        mine = f"principal = {p} AND " if principal is not None else ""
        return (
            f"SELECT * FROM runs WHERE {mine}(created_at < {p} OR (created_at = {p}"
            f" AND run_id < {p})) ORDER BY created_at DESC, run_id DESC LIMIT {p}"
        )


class SqlStore(ReleaseRows):
    """The calls of `Store` that are one statement, over the backend's `_execute` (a write,
    answering its rowcount), `_one` and `_all` (rows as dicts)."""

    sql: Statements
    releases: ReleaseStatements

    async def _execute(self, query: str, params: tuple[Any, ...] = ()) -> int:
        raise NotImplementedError

    async def _one(self, query: str, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        raise NotImplementedError

    async def _all(self, query: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        raise NotImplementedError

    # -- runs ---------------------------------------------------------------------------------
    async def insert_run(
        self,
        run_id: str,
        template_id: str,
        version: str,
        inputs: dict[str, Any],
        options: dict[str, Any],
        owner: str,
        principal: str | None = None,
    ) -> None:
        now = time.time()
        await self._execute(
            self.sql.insert_run,
            (
                run_id, template_id, version, dump(inputs), dump(options), now, now, owner, now,
                principal,
            ),
        )  # fmt: skip

    async def run(self, run_id: str) -> RunRow | None:
        row = await self._one(self.sql.run, (run_id,))
        return run_row(row) if row else None

    async def update_run(self, run_id: str, **fields: Any) -> None:
        """Set fields of a run that is not terminal yet (terminal states never change)."""
        encoded = run_fields(fields)
        await self._execute(self.sql.update_run(list(encoded)), (*encoded.values(), run_id))

    async def list_runs(
        self,
        status: str | None,
        template_id: str | None,
        limit: int,
        offset: int,
        principal: str | None = None,
    ) -> tuple[list[RunRow], int]:
        count, page, params = self.sql.list_runs(status, template_id, principal)
        total = await self._one(count, params)
        rows = await self._all(page, (*params, limit, offset))
        return [run_row(r) for r in rows], int(total["n"] if total else 0)

    async def runs_before(
        self, principal: str | None, created_at: float, run_id: str, limit: int
    ) -> list[RunRow]:
        mine = (principal,) if principal is not None else ()
        query = self.sql.runs_before(principal)
        rows = await self._all(query, (*mine, created_at, created_at, run_id, limit))
        return [run_row(r) for r in rows]

    async def queued_of(self, principal: str | None) -> int:
        row = await self._one(self.sql.queued_of, (principal,))
        return int(row["n"]) if row else 0

    async def request_cancel(self, run_id: str, force: bool) -> None:
        await self._execute(
            self.sql.request_cancel, ("force" if force else "cooperative", time.time(), run_id)
        )

    async def request_resume(self, run_id: str) -> bool:
        now = time.time()
        return await self._execute(self.sql.request_resume, (now, now, run_id)) == 1

    async def resume_flag(self, run_id: str) -> float | None:
        row = await self._one(self.sql.resume_flag, (run_id,))
        return row["resume"] if row else None

    async def cancel_flag(self, run_id: str) -> str | None:
        row = await self._one(self.sql.cancel_flag, (run_id,))
        return row["cancel"] if row else None

    async def listen_cancels(self, heard: Callable[[str, bool], None]) -> None:
        return  # no notices: the flags are read

    async def heartbeat(self, owner: str) -> None:
        await self._execute(self.sql.heartbeat, (time.time(), owner))

    async def active_of_others(self, me: str) -> list[RunRow]:
        return [run_row(r) for r in await self._all(self.sql.active_of_others, (me,))]

    async def claim(self, run_id: str, previous_owner: str | None, me: str) -> bool:
        """Take over a queued run of a dead owner; True when this process got it."""
        now = time.time()
        return await self._execute(self.sql.claim, (me, now, now, run_id, previous_owner)) == 1

    async def adopt(self, run_id: str, previous_owner: str | None, me: str) -> bool:
        """Take over a running (or waiting) run of a dead owner; True when this process got it."""
        now = time.time()
        return await self._execute(self.sql.adopt, (me, now, now, run_id, previous_owner)) == 1

    async def checkpoints(self, run_id: str) -> list[dict[str, Any]]:
        return await self._all(self.sql.checkpoints, (run_id,))

    # -- steps and kept calls -------------------------------------------------------------
    async def steps(self, run_id: str) -> list[dict[str, Any]]:
        return [step_row(r) for r in await self._all(self.sql.steps, (run_id,))]

    async def calls(self, source: str) -> list[dict[str, Any]]:
        return [call_row(r) for r in await self._all(self.sql.calls, (source,))]

    # -- artifacts ----------------------------------------------------------------------------
    async def insert_artifact(
        self,
        artifact_id: str,
        run_id: str,
        name: str,
        mime_type: str,
        size: int,
        sha256: str,
        principal: str | None = None,
    ) -> None:
        await self._execute(
            self.sql.insert_artifact,
            (artifact_id, run_id, name, mime_type, size, sha256, time.time(), principal),
        )

    async def artifact(self, artifact_id: str) -> dict[str, Any] | None:
        return await self._one(self.sql.artifact, (artifact_id,))

    async def artifacts_of(self, run_id: str) -> list[dict[str, Any]]:
        return await self._all(self.sql.artifacts_of, (run_id,))

    async def live_artifacts(self) -> list[dict[str, Any]]:
        return await self._all(self.sql.live_artifacts)

    async def mark_expired(self, artifact_id: str) -> None:
        await self._execute(self.sql.mark_expired, (artifact_id,))
