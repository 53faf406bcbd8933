"""cancel_task_run: a cancel request for a caller's run on any process on the store (the process
that runs it acts on it); `force` also aborts the steps in flight.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from .._results import ok
from .._schemas import ID, STATUS, B, obj
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params({"runId": ID, "force": {"type": "boolean"}}, ["runId"])
OUTPUT = obj({"cancelRequested": B, "currentStatus": STATUS})


async def cancel_task_run(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    manager = state.manager
    return ok(await manager.cancel(args["runId"], args.get("force", False), state.principal(ctx)))


SPEC = ToolSpec(
    "cancel_task_run",
    "Cancel a run of any process: running steps finish, pending ones are skipped, results kept; force aborts those in flight.",
    INPUT,
    OUTPUT,
    cancel_task_run,
)
