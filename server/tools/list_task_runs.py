"""list_task_runs: a page of the caller's runs on every taskplate process on the store, newest
first (an operator's: every run)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.contract import RunStatus

from .._results import ok
from .._schemas import INT, MAX_OFFSET, STATUS, S, obj
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params(
    {
        "status": {"enum": [str(s) for s in RunStatus]},
        "templateId": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "offset": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
    }
)
OUTPUT = obj(
    {
        "runs": {
            "type": "array",
            "items": obj(
                {"runId": S, "templateId": S, "status": STATUS, "createdAt": S, "updatedAt": S}
            ),
        },
        "total": INT,
    }
)


async def list_task_runs(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    return ok(
        await state.manager.list(
            args.get("status"),
            args.get("templateId"),
            args.get("limit", 20),
            args.get("offset", 0),
            state.principal(ctx),
        )
    )


SPEC = ToolSpec(
    "list_task_runs",
    "Your runs on every taskplate process on this store, newest first.",
    INPUT,
    OUTPUT,
    list_task_runs,
)
