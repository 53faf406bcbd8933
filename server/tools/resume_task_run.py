"""resume_task_run: a run waiting for a person (a hand_over step) goes on; a caller resumes only
the runs it started (an operator: any).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from .._results import ok
from .._schemas import ID, STATUS, B, S, obj
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params({"runId": ID}, ["runId"])
OUTPUT = obj({"runId": S, "resumeRequested": B, "currentStatus": STATUS})


async def resume_task_run(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    return ok(await state.manager.resume(args["runId"], state.principal(ctx)))


SPEC = ToolSpec(
    "resume_task_run",
    "Go on with a run in waiting_for_human (a hand_over step) once the person is done; remote callers resume only runs they started.",
    INPUT,
    OUTPUT,
    resume_task_run,
)
