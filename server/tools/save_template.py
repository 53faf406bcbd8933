"""save_template: a finished run_steps run, or a session's browser tool calls, kept as a
template in the user's template folder and served at once. Remote callers save only their own
runs and sessions, and only where the operator allows it.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.interpreter import Principal, first_case

from .._results import ok
from .._schemas import INT, SESSION_ID, S, obj
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params(
    {
        "name": {
            "type": "string",
            "minLength": 1,
            "description": "The template id: lower-case letters, digits and _, starting with a letter.",
        },
        "runId": {"type": "string", "minLength": 1},
        "sessionId": SESSION_ID,
        "description": {"type": "string"},
        "overwrite": {
            "type": "boolean",
            "description": "Replace a template you saved under this name.",
        },
    },
    ["name"],
)
OUTPUT = obj(
    {
        "templateId": S,
        "version": S,
        "path": S,
        "inputs": {"type": "array", "items": S},
        "secretInputs": {"type": "array", "items": S},
        "steps": INT,
        "text": S,
        "testCase": {
            "type": "string",
            "description": "The first test case's file, written when the session was recorded "
            "(create_session's record); the session is closed then.",
        },
    },
    ["templateId", "version", "path", "inputs", "secretInputs", "steps", "text"],
)


async def save_template(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    manager, trust = state.manager, state.trust(ctx)
    if trust is TrustLevel.REMOTE and not state.remote_save:
        raise TaskplateError(
            ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
            "remote callers may not save templates on this server",
            "Save over stdio (local trust), or ask the operator to serve with --allow-remote-save.",
        )
    principal = state.principal(ctx)
    source = await recording(state, args, trust, principal)
    saved = await manager.save_kept_calls(  # a remote caller's own: only it sees it
        source,
        args["name"],
        description=args.get("description"),
        overwrite=args.get("overwrite", False),
        space=principal.space,
    )
    if state.published is not None and principal.space is None:  # the operator's: for all
        state.published(manager.template(saved.template_id, saved.version))
    if state.reoffered is not None and state.reoffered():
        with contextlib.suppress(Exception):  # a session that cannot be told lists again
            await ctx.session.send_tool_list_changed()
    answer = saved.to_json()
    session_id = args.get("sessionId")
    taken = None if session_id is None else await state.sessions.take_recording(manager, session_id)
    if taken is not None:
        secrets = list(state.sessions.secrets.get(str(session_id), []))
        try:
            case = await first_case(Path(saved.path), taken, secrets)
            answer["testCase"] = str(case) if principal.space is None else f"templates/{case.name}"
        finally:
            shutil.rmtree(taken.folder, ignore_errors=True)
    return ok(answer)


async def recording(
    state: ServerState, args: dict[str, Any], trust: TrustLevel, principal: Principal
) -> str:
    """The run or session to save, if this caller may read it: its own (another caller's is
    answered as an unknown id), and for a remote caller not one a local caller made."""
    run_id, session_id = args.get("runId"), args.get("sessionId")
    if (run_id is None) == (session_id is None):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            "give either runId or sessionId (not both)",
            "runId: a finished run_steps run; sessionId: a session of browser tool calls.",
        )
    if session_id is not None:
        state.sessions.owned(state.manager, session_id, principal)
    else:
        await state.manager.row(str(run_id), principal)
    if trust is TrustLevel.REMOTE:
        opened = state.sessions.trust
        maker = (
            opened.get(session_id, TrustLevel.LOCAL)
            if session_id is not None
            else await run_trust(state, str(run_id))
        )
        if maker is TrustLevel.LOCAL:
            raise TaskplateError(
                ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
                f"{'session' if session_id else 'run'} {session_id or run_id} was made by a local caller; remote callers may save only their own",
                "Save one of your own runs or sessions.",
            )
    return str(run_id or session_id)


async def run_trust(state: ServerState, run_id: str) -> TrustLevel:
    """The trust of the caller that started a run, read through the run manager's reads."""
    try:
        row = await state.manager.row(run_id)
    except TaskplateError as error:
        if error.code != ErrorCode.RUN_NOT_FOUND:
            raise
        return TrustLevel.REMOTE  # save_kept_calls answers RUN_NOT_FOUND
    return TrustLevel(row.options.get("trust", "local"))


SPEC = ToolSpec(
    "save_template",
    "Keep what you did as a template: a finished run_steps run (runId) or the browser tools you called in a session (sessionId) become its steps, literal values its inputs. Served at once; a session created with record: true also gives its first test case.",
    INPUT,
    OUTPUT,
    save_template,
)
