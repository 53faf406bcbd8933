"""get_task_run: a run's status, progress, result, error and artifacts (and its steps), as any
server on the store sees it. On protocol 2026-07-28 an async run's open questions are asked
here (an InputRequiredResult) and their answers delivered.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from .._input_required import modern
from .._results import ok
from .._schemas import ID, RUN
from .._state import ServerState
from ._inline import fit
from ._spec import Answer, ToolSpec, params

INPUT = params({"runId": ID, "includeSteps": {"type": "boolean"}}, ["runId"])
OUTPUT = RUN


async def get_task_run(state: ServerState, args: dict[str, Any], ctx: Context) -> Answer:
    run_id, inbox, principal = args["runId"], state.inbox, state.principal(ctx)
    await state.manager.row(run_id, principal)  # another caller's run is an unknown one
    if ctx.request_state is not None:  # the answers to the questions it asked (2026-07-28)
        await inbox.deliver(state.manager, ctx)
    elif modern(ctx):
        questions = inbox.runs.get(run_id)
        if questions is not None and questions.may_answer(principal):
            required = inbox.input_required(run_id)
            if required is not None:
                return required
    answer = await state.manager.describe(run_id, args.get("includeSteps", False), principal)
    return ok(fit(answer, state.manager.limits.max_artifact_inline_bytes))


SPEC = ToolSpec(
    "get_task_run",
    "A run's status, progress, result, error and artifacts (includeSteps: every step execution).",
    INPUT,
    OUTPUT,
    get_task_run,
)
