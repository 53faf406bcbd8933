"""close_session: a session the caller may use closed, with every tab it opened."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from .._results import ok
from .._schemas import SESSION_ID, B, obj
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params({"sessionId": SESSION_ID}, ["sessionId"])
OUTPUT = obj({"closed": B})


async def close_session(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    state.sessions.usable(state.manager, args["sessionId"], state.trust(ctx), state.principal(ctx))
    await state.sessions.close(state.manager, args["sessionId"])
    return ok({"closed": True})


SPEC = ToolSpec(
    "close_session",
    "Close a session and every tab it opened.",
    INPUT,
    OUTPUT,
    close_session,
)
