"""The page actions as tools (navigate, snapshot, click, …): each the stdlib action of that
name in a session, its schemas the action's own with `sessionId` and `tabId` added. They call
the same action functions as template steps, under the caller's trust.
"""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.stdlib import REGISTRY, ActionContext, run_action

from .._paging import CURSOR_ARG, MAX_TOKENS_ARG, budget
from .._results import ok
from .._schemas import PAGE, SESSION_ID, TAB_ID
from .._state import ServerState
from ._inline import next_content, paged_content, small
from ._spec import Schema, ToolSpec

PAGE_ACTIONS = (
    "navigate",
    "wait_for_stable",
    "get_page_info",
    "get_page_content",
    "create_tab",
    "close_tab",
    "snapshot",
    "click",
    "fill",
    "press",
    "select_option",
    "screenshot",
    "evaluate",
)


def action_input_schema(name: str) -> Schema:
    schema = copy.deepcopy(REGISTRY[name].args_schema)
    schema["properties"] = {
        "sessionId": SESSION_ID,
        **({} if name in ("create_tab", "close_tab") else {"tabId": TAB_ID}),
        **schema.get("properties", {}),
    }
    schema["required"] = ["sessionId", *schema.get("required", [])]
    if name == "get_page_content":  # a long page comes in pages
        schema["properties"] |= {"cursor": CURSOR_ARG, "maxTokens": MAX_TOKENS_ARG}
    return schema


def action_output_schema(name: str) -> Schema:
    schema = copy.deepcopy(REGISTRY[name].result_schema)
    if name in ("get_page_content", "screenshot"):
        schema.setdefault("properties", {})["artifactId"] = {"type": "string"}
        schema["properties"]["inlined"] = {"type": "boolean"}
    if name == "get_page_content":
        schema["properties"]["page"] = PAGE
    if name == "evaluate":  # a value larger than an answer may be is an artifact
        schema["properties"].update(
            {
                "artifactId": {"type": "string"},
                "truncated": {"type": "boolean"},
                "bytes": {"type": "integer"},
            }
        )
    return schema


async def page_action(
    name: str, state: ServerState, args: dict[str, Any], ctx: Context
) -> CallToolResult:
    """The action `name` in the caller's session; the call is recorded for save_template."""
    spec, manager = REGISTRY[name], state.manager
    trust = state.trust(ctx)
    if not spec.level.allowed_for(trust):
        raise TaskplateError(
            ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
            f'"{name}" needs host access ({Level.L2}), which remote callers may not use',
            "Connect over stdio (local trust) to use it.",
        )
    principal = state.principal(ctx)
    if name == "get_page_content" and args.get("cursor"):  # its next page, not the page again
        room = budget(state.answer_chars, args)
        return ok(await next_content(name, manager, args["cursor"], principal, room))
    session = state.sessions.usable(manager, args["sessionId"], trust, principal)
    own = spec.args_schema.get("properties", {})  # close_tab's tabId is its argument
    ours = ("sessionId", "tabId", "cursor", "maxTokens")
    action_args = {k: v for k, v in args.items() if k in own or k not in ours}
    if name == "snapshot":  # a page of elements within the answer budget; the rest by offset
        asked = action_args.get(
            "maxBytes", REGISTRY[name].args_schema["properties"]["maxBytes"]["default"]
        )
        action_args["maxBytes"] = min(asked, state.answer_chars)
    artifacts = manager.artifacts_for(f"session_{session.id}", principal)
    action_ctx = ActionContext(
        session=session,
        tab_id=args.get("tabId"),
        trust=trust,
        artifacts=artifacts,
        profiles=manager.profiles_of(trust, principal.name),
    )
    result = await run_action(name, action_ctx, action_args)
    await state.sessions.keep_call(manager, session, name, action_args, args.get("tabId"), result)
    if name == "get_page_content":
        return ok(await paged_content(name, result, artifacts, budget(state.answer_chars, args)))
    return await small(manager, name, result, artifacts)


def page_action_spec(name: str) -> ToolSpec:
    spec = REGISTRY[name]
    return ToolSpec(
        name,
        spec.summary + (" Local callers only." if spec.level is Level.L2 else ""),
        action_input_schema(name),
        action_output_schema(name),
        partial(page_action, name),
    )


SPECS = [page_action_spec(name) for name in PAGE_ACTIONS]
