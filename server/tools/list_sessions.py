"""list_sessions: the sessions this caller opened (none for a stateless HTTP caller, who
cannot be told from another)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from .._results import ok
from .._schemas import SESSION, obj
from .._sessions import described
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params({})
OUTPUT = obj({"sessions": {"type": "array", "items": SESSION}})


async def list_sessions(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    owned = state.sessions.mine(state.manager, state.principal(ctx))
    return ok({"sessions": [described(s) for s in owned]})


SPEC = ToolSpec(
    "list_sessions",
    "The sessions you opened (over stateless HTTP, where callers cannot be told apart: none; keep your session ids).",
    INPUT,
    OUTPUT,
    list_sessions,
)
