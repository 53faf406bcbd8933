"""list_tabs: a session's tabs with their URLs and titles, and which one is its main tab."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.contract import valid_text

from .._results import ok
from .._schemas import SESSION_ID, B, S, obj
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params({"sessionId": SESSION_ID}, ["sessionId"])
OUTPUT = obj(
    {"tabs": {"type": "array", "items": obj({"tabId": S, "url": S, "title": S, "main": B})}}
)


async def list_tabs(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    session = state.sessions.usable(
        state.manager, args["sessionId"], state.trust(ctx), state.principal(ctx)
    )
    tabs = []
    for tab in session.tabs.values():
        try:
            title = valid_text(await tab.page.title())  # a page's own text
        except Exception:  # a crashed page has no title
            title = ""
        tabs.append(
            {
                "tabId": tab.id,
                "url": tab.page.url,
                "title": title,
                "main": tab.id == session.main_tab,
            }
        )
    return ok({"tabs": tabs})


SPEC = ToolSpec(
    "list_tabs",
    "The tabs of a session with their URLs and titles.",
    INPUT,
    OUTPUT,
    list_tabs,
)
