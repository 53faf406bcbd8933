"""A run's hand-over between servers as both SQL backends keep it: a run released by the server
that stops (`release`), and its events (`add_event`, `events`). Rows only; the run manager decides.
"""

from __future__ import annotations

import json
import time
from typing import Any

_ACTIVE_SQL = "('queued', 'running', 'waiting_for_human')"


class ReleaseStatements:
    """The statements, with the backend's placeholder."""

    def __init__(self, p: str) -> None:
        # no owner and no heartbeat: every other server's reap finds its owner gone at once
        self.release = (
            f"UPDATE runs SET owner = NULL, heartbeat_at = NULL, updated_at = {p}"
            f" WHERE run_id = {p} AND owner = {p} AND status IN {_ACTIVE_SQL}"
        )
        self.add_event = (
            "INSERT INTO run_events (run_id, at, kind, server, detail)"
            f" VALUES ({p}, {p}, {p}, {p}, {p})"
        )
        self.events = f"SELECT * FROM run_events WHERE run_id = {p} ORDER BY at"


class ReleaseRows:
    """The store's calls of a hand-over, over the backend's `_execute` and `_all`."""

    releases: ReleaseStatements

    async def _execute(self, query: str, params: tuple[Any, ...] = ()) -> int:
        raise NotImplementedError

    async def _all(self, query: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        raise NotImplementedError

    async def release(self, run_id: str, me: str) -> bool:
        """Let go of a run this process owns and has not finished (it stops): another
        server's reap takes it over at once. False when it was not this process's."""
        return await self._execute(self.releases.release, (time.time(), run_id, me)) == 1

    async def add_event(self, run_id: str, kind: str, server: str | None, **detail: Any) -> None:
        """Note what happened to a run besides its steps (`server`: where it happened)."""
        text = json.dumps(detail, ensure_ascii=False, separators=(",", ":"))
        await self._execute(self.releases.add_event, (run_id, time.time(), kind, server, text))

    async def events(self, run_id: str) -> list[dict[str, Any]]:
        """The run's events, oldest first: `kind`, `at`, `server` and the detail's fields."""
        rows = await self._all(self.releases.events, (run_id,))
        return [
            {"kind": r["kind"], "at": r["at"], "server": r["server"], **json.loads(r["detail"])}
            for r in rows
        ]
