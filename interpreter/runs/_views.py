"""The answers of `get_task_run` and `list_task_runs`, built from store rows: what any server on
the store shows of a run, whoever owns it. Reads only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.contract import ErrorCode, RunStatus, TaskplateError

from .._principal import OPERATOR, Principal
from .._step_log import Progress, StepRow
from ..store import RunRow, Store

if TYPE_CHECKING:
    from ._live import Live

WAIT_POLL_S = 0.2  # a run owned by another process, read again until it ends


def iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return (
        datetime.fromtimestamp(timestamp, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def _warnings_of(step: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """A step execution's own warnings: the run's that name its place (`pages[3]/read: …`)."""
    where = f"{step.get('step_path') or step['step_id']}: "
    own = [w.removeprefix(where) for w in warnings if w.startswith(where)]
    return {"warnings": own} if own and step["status"] == "succeeded" else {}


async def describe(store: Store, row: RunRow, include_steps: bool = False) -> dict[str, Any]:
    """The answer of `get_task_run` for one run's row."""
    run_id = row.run_id
    end = row.ended_at or time.time()
    out: dict[str, Any] = {
        "runId": row.run_id,
        "templateId": row.template_id,
        "templateVersion": row.template_version,
        "status": row.status,
        "progress": dict(row.progress or {"totalSteps": 0, "doneSteps": 0}),
        "metrics": {"elapsedMs": int((end - (row.started_at or row.created_at)) * 1000)},
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
    warnings = out["progress"].pop("warnings", None)  # kept with the progress, shown apart
    if warnings:
        out["warnings"] = warnings
    if row.options.get("sessionId"):
        out["sessionId"] = row.options["sessionId"]
    if row.result is not None:
        out["result"] = row.result
    if row.error is not None:
        out["error"] = row.error
    if row.waiting is not None and row.status == "waiting_for_human":
        out["waitingFor"] = row.waiting
    out["artifacts"] = [
        {
            "artifactId": a["artifact_id"],
            "type": a["mime_type"].split("/")[0],
            "mimeType": a["mime_type"],
            "size": a["size"],
            "name": a["name"],
        }
        for a in await store.artifacts_of(run_id)
    ]
    if include_steps:
        out["steps"] = [
            {
                "stepId": s["step_id"],
                "stepPath": s.get("step_path"),
                "itemIndex": s["item_index"],
                "action": s["action"],
                "status": s["status"],
                "attempts": s["attempts"],
                "startedAt": iso(s["started_at"]),
                "endedAt": iso(s["ended_at"]),
                "argsPreview": s["args_preview"],
                "resultPreview": s["result_preview"],
                "error": s["error"],
                **({"tabId": s["tab_id"]} if s.get("tab_id") else {}),
                **(
                    {"screenshotArtifactId": s["screenshot_artifact_id"]}
                    if s.get("screenshot_artifact_id")
                    else {}
                ),
                "provider": s.get("provider"),
                "capabilityLevel": s.get("capability_level"),
                **({"confirmation": s["confirmation"]} if s.get("confirmation") else {}),
                **_warnings_of(s, warnings or []),
            }
            for s in await store.steps(run_id)
        ]
    return out


def listing(rows: list[RunRow], total: int) -> dict[str, Any]:
    """The answer of `list_task_runs` for one page of rows."""
    runs = [
        {
            "runId": r.run_id,
            "templateId": r.template_id,
            "status": r.status,
            "createdAt": iso(r.created_at),
            "updatedAt": iso(r.updated_at),
        }
        for r in rows
    ]
    return {"runs": runs, "total": total}


class RunReads:
    """Every read of runs, for the tools and the runs page alike: one run (reaping dead owners
    first, so what is read is true), a page of runs, a run's step rows and artifacts, and
    waiting for a run's end, here or on any server on the store. Reads only. A base of the
    run manager: its reads are the manager's own methods."""

    store: Store
    live: dict[str, Live]  # the runs this process executes

    async def reap(self) -> None:
        """Dead owners' runs settled before a read (the manager's reaping)."""

    async def row(self, run_id: str, principal: Principal = OPERATOR) -> RunRow:
        """The run, if `principal` may see it: another caller's is answered as an unknown one
        (the same code and message), so that ids cannot be probed."""
        await self.reap()
        row = await self.store.run(run_id)
        if row is None or not principal.sees(row.principal):
            raise TaskplateError(
                ErrorCode.RUN_NOT_FOUND, f"no run {run_id}", "List runs with list_task_runs."
            )
        return row

    async def describe(
        self, run_id: str, include_steps: bool = False, principal: Principal = OPERATOR
    ) -> dict[str, Any]:
        return await describe(self.store, await self.row(run_id, principal), include_steps)

    async def run_rows(
        self,
        status: str | None,
        template_id: str | None,
        limit: int,
        offset: int,
        principal: Principal = OPERATOR,
    ) -> tuple[list[RunRow], int]:
        """A page of the runs `principal` may see, newest first, and how many match (limit 1
        to 100): one query filtered by its name."""
        if principal.lists_nothing:
            return [], 0
        await self.reap()
        return await self.store.list_runs(
            status, template_id, max(1, min(limit, 100)), max(0, offset), principal.listed
        )

    async def rows_before(
        self, principal: Principal, last: RunRow | None, limit: int
    ) -> list[RunRow]:
        """Up to `limit` runs `principal` may see, newest first, older than `last` (None: from
        the newest): a keyset page, one query filtered by its name."""
        if principal.lists_nothing:
            return []
        await self.reap()
        created_at, run_id = (last.created_at, last.run_id) if last else (float("inf"), "")
        return await self.store.runs_before(principal.listed, created_at, run_id, limit)

    async def step_rows(self, run_id: str) -> list[dict[str, Any]]:
        """A run's step executions as the store keeps them, in order (no run: none)."""
        return await self.store.steps(run_id)

    async def run_events(self, run_id: str) -> list[dict[str, Any]]:
        """A run's events besides its steps, oldest first: handed over by a server that
        stopped, resumed by another (with the items it ran again)."""
        return await self.store.events(run_id)

    async def artifact_meta(self, artifact_id: str) -> dict[str, Any] | None:
        """An artifact's row (its run, name, MIME type, size), None when there is none."""
        return await self.store.artifact(artifact_id)

    async def list(
        self,
        status: str | None = None,
        template_id: str | None = None,
        limit: int = 20,
        offset: int = 0,
        principal: Principal = OPERATOR,
    ) -> dict[str, Any]:
        return listing(*await self.run_rows(status, template_id, limit, offset, principal))

    async def wait(
        self,
        run_id: str,
        on_progress: Callable[[Progress], None] | None = None,
        on_step: Callable[[StepRow], None] | None = None,
    ) -> dict[str, Any]:
        """The run's answer once it is terminal; listeners hear its progress and every step
        execution while it runs in this process."""
        live = self.live.get(run_id)
        if live is not None:
            if on_progress is not None:
                live.progress_listeners.append(on_progress)
            if on_step is not None:
                live.step_listeners.append(on_step)
            await live.done.wait()
        else:
            while True:
                row = await self.store.run(run_id)
                if row is None or RunStatus(row.status).terminal:
                    break
                await self.reap()
                await anyio.sleep(WAIT_POLL_S)
        return await self.describe(run_id)
