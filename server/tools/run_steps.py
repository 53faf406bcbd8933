"""run_steps: a list of steps in template syntax, checked like `dsl validate` (in a worker
thread, a few at once, so a large check never holds the event loop), then run as a run of its
own under the caller's trust; answers every step's result.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import anyio
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.dsl import CheckResult, check_source, format_text
from taskplate.stdlib import REGISTRY

from .._follow import follow
from .._input_required import channels_for
from .._results import ok
from .._schemas import MAX_MS, RUN_ERROR, SESSION_ID, STATUS, S, obj
from .._state import ServerState
from .._tasks import task_requested
from ._spec import Answer, ToolSpec, params

INPUT = params(
    {
        "steps": {"type": "array", "minItems": 1, "items": {"type": "object"}},
        "sessionId": SESSION_ID,
        "stopOnError": {"type": "boolean"},
        "timeoutMs": {"type": "integer", "minimum": 1, "maximum": MAX_MS},
    },
    ["steps"],
)
OUTPUT = obj(
    {
        "runId": S,
        "status": STATUS,
        "results": {"type": "object"},
        "steps": {"type": "array"},
        "error": RUN_ERROR,
    },
    ["runId", "status", "results", "steps"],
)


async def run_steps(state: ServerState, args: dict[str, Any], ctx: Context) -> Answer:
    manager, inbox = state.manager, state.inbox
    if ctx.request_state is not None:  # a later round (2026-07-28): answers, then on
        resumed = await inbox.deliver(manager, ctx)
        return await inbox.follow_or_ask(resumed, lambda: steps_answer(state, resumed, ctx))
    trust = state.trust(ctx)
    # Checking costs up to a second for the largest steps a caller may send: in a worker
    # thread (at most CHECKS_AT_ONCE), so that the server answers everyone meanwhile.
    text, checked = await anyio.to_thread.run_sync(checked_steps, args, trust, limiter=state.checks)
    if not checked.ok or checked.template is None:
        raise invalid_steps(checked, text)
    options = {"timeoutMs": args["timeoutMs"]} if "timeoutMs" in args else {}
    session_id, principal = args.get("sessionId"), state.principal(ctx)
    if session_id:
        state.sessions.usable(manager, session_id, trust, principal)
    asks = state.task_asks if task_requested(ctx) else None
    asker, sampler, questions = channels_for(inbox, ctx, trust, principal, asks)
    run_id = await manager.submit(
        "run_steps",
        {},
        template=checked.template,
        options=options,
        trust=trust,
        session_id=session_id,
        principal=principal,
        asker=asker,
        sampler=sampler,
    )
    if questions is not None:
        inbox.bind(manager, run_id, questions)
    if task_requested(ctx):  # a task (2025-11-25): answered at once, its result later
        asker.call_ended(run_id)
        return ok({"runId": run_id, "status": "queued", "results": {}, "steps": []})
    return await inbox.follow_or_ask(run_id, lambda: steps_answer(state, run_id, ctx))


def checked_steps(args: dict[str, Any], trust: TrustLevel) -> tuple[str, CheckResult]:
    """run_steps' steps as a template's text, and what `dsl validate` says of it."""
    steps = copy.deepcopy(args["steps"])
    for index, step in enumerate(steps):
        if isinstance(step, dict):
            step.setdefault("id", f"step_{index + 1}")
            if not args.get("stopOnError", True):
                step.setdefault("onError", "continue")
    text = json.dumps(
        {"template": "run_steps", "version": "0.0.0", "trust": [str(trust)], "steps": steps},
        indent=1,
    )
    return text, check_source(text, "run_steps", REGISTRY)


def invalid_steps(checked: CheckResult, text: str) -> TaskplateError:
    """The check's errors as the tool's one error (TRUST_LEVEL_NOT_ALLOWED for trust)."""
    problems = [d for d in checked.diagnostics if d.severity == "error"]
    code = (
        ErrorCode.TRUST_LEVEL_NOT_ALLOWED
        if any(d.rule == "trust" for d in problems)
        else ErrorCode.INVALID_PARAMETER
    )
    return TaskplateError(
        code,
        "the steps are not valid: "
        + "; ".join(f"{d.pointer or '/'}: {d.message}" for d in problems[:5]),
        "Fix the steps (template syntax, docs/authoring.md).",
        {
            "diagnostics": [d.to_json() for d in problems],
            "text": [format_text(d, text) for d in problems[:3]],
        },
    )


async def steps_answer(state: ServerState, run_id: str, ctx: Context) -> CallToolResult:
    """The run followed to its end: its status, results and every step."""
    return await final(state, run_id, await follow(state.manager, ctx, run_id, state.log_levels))


async def final(
    state: ServerState, run_id: str, answer: dict[str, Any] | None = None
) -> CallToolResult:
    """The answer of a run that ended (`answer`: its state, when already read)."""
    described = await state.manager.describe(run_id, include_steps=True)
    answer = answer or described
    out = {
        "runId": run_id,
        "status": answer["status"],
        "results": answer.get("result") or {},
        "steps": described.get("steps", []),
    }
    if answer.get("error"):
        out["error"] = answer["error"]
    return ok(out)


SPEC = ToolSpec(
    "run_steps",
    "Run a list of steps (template syntax, validated like a template) in one call, under your trust level; answers every step's result.",
    INPUT,
    OUTPUT,
    run_steps,
)
