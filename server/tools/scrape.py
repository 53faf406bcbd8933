"""scrape: one page in one call, in a session of its own closed after: navigate, wait (for the
page to be stable, or a fixed time), then its content or a screenshot, under the inline limit.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.interpreter import RunArtifacts
from taskplate.stdlib import ActionContext, run_action

from .._results import ok
from .._schemas import INT, PROFILE_ID, B, S, obj
from .._state import ServerState
from ._inline import small
from ._spec import ToolSpec, params

INPUT = params(
    {
        "url": {"type": "string", "minLength": 1},
        "format": {"enum": ["markdown", "html", "links", "screenshot", "fullscreenshot"]},
        "onlyMainContent": {"type": "boolean"},
        "waitFor": {
            "type": "integer",
            "minimum": 0,
            "maximum": 60_000,
            "description": ">0: a fixed wait in ms; 0: wait until the page is stable.",
        },
        "profileId": PROFILE_ID,
    },
    ["url"],
)
OUTPUT = obj(
    {
        "url": S,
        "format": S,
        "content": S,
        "bytes": INT,
        "truncated": B,
        "artifactId": S,
        "title": S,
        "status": {"type": ["integer", "null"]},
    },
    ["url", "format"],
)


async def scrape(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    manager, trust = state.manager, state.trust(ctx)
    session = await state.sessions.open(manager, trust, args.get("profileId"))
    artifacts = RunArtifacts(manager.artifacts, f"scrape_{session.id}")
    action_ctx = ActionContext(session=session, trust=trust, artifacts=artifacts)
    fmt = args.get("format", "markdown")
    try:
        page = await run_action("navigate", action_ctx, {"url": args["url"]})
        wait_ms = args.get("waitFor", 0)
        if wait_ms > 0:
            await run_action("wait", action_ctx, {"ms": wait_ms})
        else:
            await run_action("wait_for_stable", action_ctx, {"timeoutMs": 10_000, "quietMs": 500})
        base = {"url": page["url"], "format": fmt, "title": page["title"], "status": page["status"]}
        if fmt in ("screenshot", "fullscreenshot"):
            shot = await run_action("screenshot", action_ctx, {"fullPage": fmt == "fullscreenshot"})
            answer = await small(manager, "screenshot", shot, artifacts)
            answer.structured_content = {**base, **(answer.structured_content or {})}
            return answer
        content = await run_action(
            "get_page_content",
            action_ctx,
            {"format": fmt, "onlyMainContent": args.get("onlyMainContent", True)},
        )
        answer = await small(manager, "get_page_content", content, artifacts)
        return ok({**base, **(answer.structured_content or {})})
    finally:
        await manager.sessions.close(session.id)


SPEC = ToolSpec(
    "scrape",
    "One page in one call: open it in a fresh context seeded from a profile, wait (smart by default), and answer it as markdown, html, links, or a (full) screenshot.",
    INPUT,
    OUTPUT,
    scrape,
)
