"""A run as an MCP task on the wire: its status in the Tasks vocabulary, the Task object of
2025-11-25 (`ttl`, `pollInterval`) and of the 2026-07-28 extension (`ttlMs`, `pollIntervalMs`),
and the error codes both use. Data only; `_tasks` answers with it.
"""

from __future__ import annotations

import time
from typing import Any

from taskplate.interpreter import RunRow, iso, progress_text

LEGACY = "2025-11-25"  # the protocol version with tasks in core
RELATED_TASK = "io.modelcontextprotocol/related-task"  # _meta key of a task's own answer
METHOD_NOT_FOUND = -32601  # a task asked of a tool that does not support tasks
INVALID_PARAMS = -32602  # an unknown or foreign task id, a cancel of an ended task
RUN_FAILED = -32000  # a failed task's error (2026-07-28): its data is the tool's own answer
# What 2025-11-25's capabilities say: tasks of tools/call, listed and cancelled.
TASK_CAPABILITY: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}

# A run's status as a task's.
STATUS = {
    "queued": "working",
    "running": "working",
    "waiting_for_human": "input_required",
    "succeeded": "completed",
    "partial_success": "completed",
    "failed": "failed",
    "canceled": "cancelled",
}


def poll_interval_ms(row: RunRow, now: float | None = None) -> int:
    """How often to ask again, from the run's progress: a tenth of the time it still needs
    (from its pace so far), between 0.5 and 5 s; 2 s while nothing is counted yet."""
    progress = row.progress or {}
    done, total = progress.get("doneSteps", 0), progress.get("totalSteps", 0)
    items = progress.get("items")
    if isinstance(items, dict):
        done, total = items.get("done", 0), items.get("total", 0)
    elapsed = (now or time.time()) - (row.started_at or row.created_at)
    if not done or not total or done >= total or elapsed <= 0:
        return 2000
    remaining_s = elapsed * (total - done) / done
    return int(min(5000, max(500, remaining_s * 100)))


def _message(row: RunRow) -> str:
    waiting = row.waiting or {}
    if row.status == "waiting_for_human":
        reason = waiting.get("reason") or waiting.get("message") or "a person"
        return f"run {row.run_id} waits for {reason} (resume_task_run once done)"
    error = row.error or {}
    if error.get("errorCode"):
        return f"run {row.run_id} {row.status}: {error['errorCode']}: {error.get('error', '')}"
    if row.status == "running" and row.progress:  # as the runs page and notifications say it
        return f"run {row.run_id} running: {progress_text(row.progress)}"
    return f"run {row.run_id} {row.status}"


def _base(row: RunRow, status: str) -> dict[str, Any]:
    return {
        "taskId": row.run_id,
        "status": status,
        "statusMessage": _message(row),
        "createdAt": iso(row.created_at),
        "lastUpdatedAt": iso(row.updated_at),
    }


def legacy_task(row: RunRow, asking: bool = False) -> dict[str, Any]:
    """The 2025-11-25 Task of a run (kept as long as the run is: no ttl); `asking`: a question
    of the run waits for the requester's answer (see `_task_asks`)."""
    asking = asking and STATUS[row.status] == "working"
    task = _base(row, "input_required" if asking else STATUS[row.status])
    if asking:
        task["statusMessage"] = f"run {row.run_id} asks its user (answer through tasks/result)"
    return {**task, "ttl": None, "pollInterval": poll_interval_ms(row)}


def modern_task(row: RunRow, input_requests: dict[str, Any] | None) -> dict[str, Any]:
    """The 2026-07-28 Task of a run: input_required only with the questions to answer
    (`tasks/update`); a run waiting for a person without one keeps working."""
    status = STATUS[row.status]
    if input_requests:
        status = "input_required"
    elif status == "input_required":
        status = "working"
    task = {**_base(row, status), "ttlMs": None, "pollIntervalMs": poll_interval_ms(row)}
    if input_requests:
        task["inputRequests"] = input_requests
    return task
