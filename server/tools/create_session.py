"""create_session: a named browser session of the caller's own (isolated cookies and storage),
seeded from a login profile."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from .._results import ok
from .._schemas import PROFILE_ID, SESSION
from .._sessions import described
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params(
    {
        "profileId": PROFILE_ID,
        "record": {
            "type": "boolean",
            "description": "Record its network: save_template then writes a test case too.",
        },
    }
)
OUTPUT = SESSION


async def create_session(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    session = await state.sessions.open(
        state.manager,
        state.trust(ctx),
        state.principal(ctx),
        args.get("profileId"),
        args.get("record", False),
    )
    return ok(described(session))


SPEC = ToolSpec(
    "create_session",
    "Open a browser session (own cookies and storage, up to 20 tabs), seeded from a login profile.",
    INPUT,
    OUTPUT,
    create_session,
)
