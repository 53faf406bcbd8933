"""The answers of `get_task_run` and `list_task_runs`, built from store rows: what any server on
the store shows of a run, whoever owns it. Reads only.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from ._stores import RunRow, Store


def iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return (
        datetime.fromtimestamp(timestamp, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


async def describe(store: Store, row: RunRow, include_steps: bool = False) -> dict[str, Any]:
    """The answer of `get_task_run` for one run's row."""
    run_id = row.run_id
    end = row.ended_at or time.time()
    out: dict[str, Any] = {
        "runId": row.run_id,
        "templateId": row.template_id,
        "templateVersion": row.template_version,
        "status": row.status,
        "progress": row.progress or {"totalSteps": 0, "doneSteps": 0},
        "metrics": {"elapsedMs": int((end - (row.started_at or row.created_at)) * 1000)},
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
    }
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
