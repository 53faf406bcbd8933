"""run_task_template: one run of a served template through the run manager. Sync answers the
finished run (following it with progress and log notifications), async `{runId, queued}`.

On protocol 2026-07-28 a run's questions come back as an InputRequiredResult; the call that
answers them (it carries `requestState`) delivers the answers and follows the run on.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.interpreter import OPERATOR

from .._follow import follow
from .._input_required import channels_for
from .._paging import MAX_TOKENS_ARG, budget
from .._results import ok
from .._schemas import ID, MAX_MS, PROFILE_ID, RUN, S, obj
from .._state import ServerState, refresh_templates
from .._tasks import task_requested
from ._run_pages import run_answer
from ._spec import Answer, ToolSpec, params

INPUT = params(
    {
        "templateId": ID,
        "templateVersion": {
            "type": "string",
            "description": "1.2.3 or a range (^1.2); default the newest.",
        },
        "sessionId": {
            "type": "string",
            "description": "Run in this session (left open).",
        },
        "profileId": {
            **PROFILE_ID,
            "description": "Seed the run's own session from this login profile.",
        },
        "inputs": {
            "type": "object",
            "description": "Checked against the template's inputsSchema.",
        },
        "maxTokens": MAX_TOKENS_ARG,
        "options": params(
            {
                "timeoutMs": {"type": "integer", "minimum": 1, "maximum": MAX_MS},
                "mode": {"enum": ["sync", "async", "auto"]},
                "heal": {"enum": ["off", "suggest"]},
                "trace": {
                    "enum": ["off", "on-failure", "on"],
                    "description": "Keep a Playwright trace.zip: never, on failure (local default), always.",
                },
                "proxy": {
                    "type": "string",
                    "description": "scheme://[user:password@]host:port; remote: the operator's allowed proxies.",
                },
                "browser": {
                    "type": "object",
                    "description": "What the template's browser.callerMaySet allows (locale, userAgent, …).",
                },
                "maxRetryAfterS": {
                    "type": "number",
                    "minimum": 0,
                    "description": "Cap on a site's Retry-After.",
                },
            }
        ),
    },
    ["templateId"],
)
QUEUED = obj({"runId": S, "status": {"const": "queued"}, "createdAt": S})
OUTPUT = {"anyOf": [RUN, QUEUED]}


async def run_task_template(state: ServerState, args: dict[str, Any], ctx: Context) -> Answer:
    manager, inbox = state.manager, state.inbox
    if ctx.request_state is not None:  # a later round (2026-07-28): answers, then on
        run_id = await inbox.deliver(manager, ctx)
        room = budget(state.answer_chars, args)
        return await inbox.follow_or_ask(run_id, lambda: following(state, run_id, ctx, room))
    await refresh_templates(state, ctx)
    trust, principal = state.trust(ctx), state.principal(ctx)
    template = manager.template(args["templateId"], args.get("templateVersion"), principal.space)
    options = dict(args.get("options") or {})
    inputs = args.get("inputs") or {}
    mode = manager.decide_mode(template, inputs, options)
    if args.get("sessionId"):
        state.sessions.usable(manager, args["sessionId"], trust, principal)
    asks = state.task_asks if task_requested(ctx) else None
    asker, sampler, questions = channels_for(inbox, ctx, trust, principal, asks)
    run_id = await manager.submit(
        template.id,
        inputs,
        version=template.version,
        template=template,  # the caller's own saved one, or a served one
        options=options,
        trust=trust,
        session_id=args.get("sessionId"),
        profile_id=args.get("profileId"),
        principal=principal,
        asker=asker,
        sampler=sampler,
    )
    if questions is not None:
        inbox.bind(manager, run_id, questions)
    if mode == "async" or task_requested(ctx):  # a task (2025-11-25) is an async run
        asker.call_ended(run_id if asks is not None else None)
        return ok(
            {
                "runId": run_id,
                "status": "queued",
                "createdAt": (await manager.describe(run_id))["createdAt"],
            }
        )
    room = budget(state.answer_chars, args)
    try:
        return await inbox.follow_or_ask(run_id, lambda: following(state, run_id, ctx, room))
    finally:
        asker.call_ended()


async def following(state: ServerState, run_id: str, ctx: Context, room: int) -> CallToolResult:
    """The run's answer once it ends (within `room` characters), its progress and steps sent to
    the client meanwhile."""
    answer = await follow(state.manager, ctx, run_id, state.log_levels)
    return ok(await run_answer(state.manager, answer, state.principal(ctx), room))


async def final(state: ServerState, run_id: str) -> CallToolResult:
    """The answer of a run that ended, as the sync call gives it (a task's result)."""
    answer = await state.manager.describe(run_id)  # its caller's, checked by who asks
    return ok(await run_answer(state.manager, answer, OPERATOR, state.answer_chars))


SPEC = ToolSpec(
    "run_task_template",
    "Run a template. mode sync answers the finished run (with progress notifications); async answers {runId, status: queued} at once (poll get_task_run every 2 s); auto: the template decides.",
    INPUT,
    OUTPUT,
    run_task_template,
)
