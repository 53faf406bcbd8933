"""scrape: one page in one call, in a session of its own closed after: navigate, wait (for the
page to be stable, or a fixed time), then its content or a screenshot, under the inline limit;
or, with engine http or auto, its content read by `read_page` (a session only if it chooses one).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib import ActionContext, run_action

from .._paging import CURSOR_ARG, MAX_TOKENS_ARG, budget
from .._results import ok
from .._schemas import INT, PAGE, PROFILE_ID, B, S, obj
from .._state import ServerState
from ._inline import next_content, paged_content, small
from ._spec import ToolSpec, params

if TYPE_CHECKING:
    from taskplate.browser import Session

INPUT = params(
    {
        "url": {"type": "string", "minLength": 1},
        "format": {"enum": ["markdown", "html", "links", "screenshot", "fullscreenshot"]},
        "onlyMainContent": {"type": "boolean"},
        "waitFor": {
            "type": "integer",
            "minimum": 0,
            "maximum": 60_000,
            "description": ">0: a fixed wait in ms; 0: until the page is stable.",
        },
        "engine": {
            "enum": ["browser", "auto", "http"],
            "description": "browser (default); http: no browser; auto: http when its HTML holds the"
            " content.",
        },
        "profileId": PROFILE_ID,
        "cursor": {**CURSOR_ARG, "description": "A nextCursor: the next page (no url)."},
        "maxTokens": MAX_TOKENS_ARG,
    },
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
        "engine": S,
        "engineReason": {"type": ["string", "null"]},
        "pageType": S,  # one of PAGE_TYPES; a string here: the default tools/list's room
        "page": PAGE,
    },
    ["url", "format"],
)


async def scrape(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    manager, trust = state.manager, state.trust(ctx)
    room = budget(state.answer_chars, args)
    if args.get("cursor"):  # the next page of a long one read before
        return ok(await next_content("scrape", manager, args["cursor"], state.principal(ctx), room))
    if not args.get("url"):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            "scrape needs `url` (or `cursor`, to read on in a page read before)",
            "Pass the page's url.",
        )
    fmt = args.get("format", "markdown")
    if args.get("engine", "browser") != "browser" and fmt not in ("screenshot", "fullscreenshot"):
        return await _read(state, args, ctx)
    principal = state.principal(ctx)
    session = await state.sessions.open(manager, trust, principal, args.get("profileId"))
    artifacts = manager.artifacts_for(f"scrape_{session.id}", principal)
    action_ctx = ActionContext(session=session, trust=trust, artifacts=artifacts)
    try:
        page = await run_action("navigate", action_ctx, {"url": args["url"]})
        wait_ms = args.get("waitFor", 0)
        if wait_ms > 0:
            await run_action("wait", action_ctx, {"ms": wait_ms})
        else:
            await run_action("wait_for_stable", action_ctx, {"timeoutMs": 10_000, "quietMs": 500})
        base = {"url": page["url"], "format": fmt, "title": page["title"], "status": page["status"]}
        base |= {"engine": "browser", "engineReason": None}
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
        return ok(await paged_content("scrape", {**base, **content}, artifacts, room))
    finally:
        await state.sessions.close(manager, session.id)


async def _read(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    """The page read by read_page with the caller's engine: over HTTP with the profile's cookies,
    and in a session opened only if the browser is chosen (closed after, as always)."""
    from taskplate.stdlib import WebClient  # httpx: when a page is read so, not at the start

    manager, trust, principal = state.manager, state.trust(ctx), state.principal(ctx)
    opened: list[Session] = []

    async def browser() -> tuple[Session, str | None]:
        if not opened:
            opened.append(
                await state.sessions.open(manager, trust, principal, args.get("profileId"))
            )
        return opened[0], None

    async def cookies() -> Sequence[Mapping[str, Any]]:
        if opened:
            return await opened[0].cookies()
        # the caller's own profile, or one shared with it
        profile = manager.profile_snapshot(args.get("profileId") or "master", trust, principal.name)
        return list(profile.state.get("cookies", []))

    artifacts = manager.artifacts_for(f"scrape_{secrets.token_hex(6)}", principal)
    network = manager.operator_network(args.get("profileId"))
    policy = manager.url_policy(trust, proxy=network.proxy)
    read = {
        "url": args["url"],
        "engine": args["engine"],
        "format": args.get("format", "markdown"),
        "onlyMainContent": args.get("onlyMainContent", True),
        "waitFor": args.get("waitFor", 0),
    }
    try:
        async with WebClient(policy=policy, cookies=cookies, network=network) as web:
            action_ctx = ActionContext(
                trust=trust, artifacts=artifacts, web=web, url_policy=policy, browser=browser
            )
            page = await run_action("read_page", action_ctx, read)
    finally:
        if opened:
            await state.sessions.close(manager, opened[0].id)
    base = {
        key: page[key] for key in ("url", "format", "title", "status", "engine", "engineReason")
    }
    content = {
        key: page[key] for key in ("format", "title", "content", "bytes", "truncated", "pageType")
    }
    room = budget(state.answer_chars, args)
    return ok(
        await paged_content("scrape", {**base, **content, **_warnings(page)}, artifacts, room)
    )


def _warnings(page: dict[str, Any]) -> dict[str, Any]:
    return {"warnings": page["warnings"]} if page.get("warnings") else {}


SPEC = ToolSpec(
    "scrape",
    "One page in one call (a fresh context): wait, then markdown, html, links or a screenshot.",
    INPUT,
    OUTPUT,
    scrape,
)
