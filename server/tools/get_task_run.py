"""get_task_run: a run's status, progress, result, error and artifacts (and its steps), as any
server on the store sees it. On protocol 2026-07-28 an async run's open questions are asked
here (an InputRequiredResult) and their answers delivered.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from .._input_required import modern
from .._paging import CURSOR_ARG, MAX_TOKENS_ARG, budget
from .._results import ok
from .._schemas import ID, RUN
from .._state import ServerState
from ._run_pages import next_run_page, run_answer
from ._spec import Answer, ToolSpec, params

INPUT = params(
    {
        "runId": ID,
        "includeSteps": {"type": "boolean"},
        "cursor": CURSOR_ARG,
        "maxTokens": MAX_TOKENS_ARG,
    },
    ["runId"],
)
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
    room = budget(state.answer_chars, args)
    if args.get("cursor"):
        return ok(await next_run_page(state.manager, run_id, args["cursor"], principal, room))
    answer = await state.manager.describe(run_id, args.get("includeSteps", False), principal)
    return ok(await run_answer(state.manager, answer, principal, room))


SPEC = ToolSpec(
    "get_task_run",
    "A run's status, progress, result, error and artifacts (includeSteps: every step execution). Long lists come in pages: pass resultPage/stepsPage.nextCursor as cursor.",
    INPUT,
    OUTPUT,
    get_task_run,
)
