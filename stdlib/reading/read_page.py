"""The `read_page` action: one page's content read over plain HTTP, in the browser, or (engine
auto) over HTTP when its HTML holds its content and in the browser when it needs script.

The one place a reading engine is chosen (batch_extract_pages, crawl_site and scrape call it);
the reading itself is `fetch`'s and `navigate`/`get_page_content`'s. Knows no site and no template.
"""

from __future__ import annotations

import re
from collections import Counter
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .. import _schemas
from .._schemas import (
    BOOLEAN,
    INTEGER,
    NULLABLE_STRING,
    PAGE_TYPE,
    STRING,
    TIMEOUT_MS,
    URL,
    args,
    result,
)

if TYPE_CHECKING:
    from .._context import ActionContext
    from ..web import HostReading, WebClient

ENGINES = ["auto", "browser", "http"]
# engine auto: a host's first pages (that no signal sent to the browser) are read both ways;
# when this many agree (main content token F1 at least AGREE), its next pages are kept over HTTP.
LEARN_PAGES = 2
AGREE = 0.99
_TOKEN = re.compile(r"\w+")


def token_f1(one: str, other: str) -> float:
    """How alike two texts are as bags of words (1.0: the same words as often)."""
    a, b = Counter(_TOKEN.findall(one.lower())), Counter(_TOKEN.findall(other.lower()))
    if not a and not b:
        return 1.0
    common = sum((a & b).values())
    if not common:
        return 0.0
    precision, recall = common / sum(a.values()), common / sum(b.values())
    return 2 * precision * recall / (precision + recall)


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    from ..web import client_for

    engine = args.get("engine", "auto")
    async with client_for(ctx) as web:
        if engine == "browser":
            return await _in_browser(ctx, web, args, "engine browser was asked for")
        if engine == "http":
            return _read_over_http((await _over_http(ctx, web, args))[0])
        return await _auto(ctx, web, args)


async def _auto(ctx: ActionContext, web: WebClient, args: dict[str, Any]) -> dict[str, Any]:
    """Over HTTP when nothing in the answer asks for script and the host reads the same both
    ways; else in the browser, saying why."""
    try:
        out, why = await _over_http(ctx, web, args)
    except TaskplateError as exc:
        refused = {"maxBodyBytes", "contentType"} & set(exc.details or {})
        if exc.code is ErrorCode.URL_NOT_ALLOWED or refused:
            raise  # oversized, not HTML, or not allowed: refused as fetch refuses it
        return await _in_browser(ctx, web, args, f"over HTTP: {exc.message}")
    if out["status"] >= 400:
        why = f"over HTTP the page answered {out['status']}"
        return _also_paced(out, await _in_browser(ctx, web, args, why))
    if why is not None:
        return _unless_blank(
            out, await _in_browser(ctx, web, args, f"its HTML needs script: {why}")
        )
    reading = web.host(out["url"]).reading
    while reading.engine is None and reading.trying + reading.agreed >= LEARN_PAGES:
        await reading.changed.wait()
    if reading.engine == "http":
        return _read_over_http(out)
    if reading.engine == "browser":
        return _unless_blank(out, _also_paced(out, await _in_browser(ctx, web, args, reading.why)))
    reading.trying += 1
    try:
        return await _both_ways(ctx, web, args, out, reading)
    finally:
        reading.trying -= 1
        reading.settle()


async def _both_ways(
    ctx: ActionContext,
    web: WebClient,
    args: dict[str, Any],
    out: dict[str, Any],
    reading: HostReading,
) -> dict[str, Any]:
    """One of a host's first pages, read in the browser too and compared: the HTTP reading
    kept when they agree, the browser's when they differ (and the host goes to the browser)."""
    try:
        seen = await _in_browser(ctx, web, args, "", check=True)
    except TaskplateError as exc:  # nothing learned; the HTTP reading stands
        kept = _read_over_http(out)
        kept.setdefault("warnings", []).append(f"not compared with the browser: {exc.message}")
        return kept
    if _blank_in_browser(out, seen):  # nothing learned: the browser showed nothing
        return _unless_blank(out, seen)
    alike = token_f1(out["content"], seen["content"])
    if alike >= AGREE:
        reading.agreed += 1
        if reading.agreed >= LEARN_PAGES and reading.engine is None:
            reading.engine = "http"
        return _read_over_http(out)
    reading.engine = "browser"
    reading.why = (
        f"this host's pages read differently over HTTP and in the browser (token F1"
        f" {alike:.3f} on {out['url']})"
    )
    why = f"read both ways, they differ (token F1 {alike:.3f})"
    return _also_paced(out, {**seen, "engineReason": why})


# What engine auto answers when the browser shows no text where the HTML holds some: a script
# that emptied the page (or failed without what it loads, and took the page down with it).
BLANK = (
    "in the browser the page showed no text (its script emptied it, or failed); this is the"
    " page's HTML as the server sent it, read over HTTP"
)


def _blank(out: dict[str, Any]) -> bool:
    from .get_page_content import has_words

    return not has_words(out["content"], out.get("format", "markdown"))


def _blank_in_browser(out: dict[str, Any], seen: dict[str, Any]) -> bool:
    """Whether the browser's reading holds no word where the HTTP one holds some."""
    return _blank(seen) and not _blank(out)


def _unless_blank(out: dict[str, Any], seen: dict[str, Any]) -> dict[str, Any]:
    """The browser's reading, or the HTTP one with a warning when the browser's is blank and
    the HTTP one is not: the text the server sent, never an empty answer."""
    if not _blank_in_browser(out, seen):
        return seen
    kept = _read_over_http(out)
    return kept | {"warnings": [*kept.get("warnings", []), BLANK]}


def _also_paced(out: dict[str, Any], seen: dict[str, Any]) -> dict[str, Any]:
    """The browser's reading, with what the HTTP request before it met of the host's pace (its
    Retry-After, the retries: `HostThrottle`'s warnings, which all name Retry-After)."""
    warnings = [w for w in out.get("warnings", []) if "Retry-After" in w]
    warnings += seen.get("warnings", [])
    return seen | ({"warnings": warnings} if warnings else {})


async def _over_http(
    ctx: ActionContext, web: WebClient, args: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    from .fetch import read_within

    return await read_within(ctx, web, args, robots=args.get("obeyRobots", False))


def _read_over_http(out: dict[str, Any]) -> dict[str, Any]:
    kept = {key: out[key] for key in _RESULT_KEYS if key in out}
    warnings = [w for w in out.get("warnings", []) if not w.startswith("this page may need")]
    return (
        kept
        | {"engine": "http", "engineReason": None}
        | ({"warnings": warnings} if warnings else {})
    )


async def _in_browser(
    ctx: ActionContext, web: WebClient, args: dict[str, Any], why: str, check: bool = False
) -> dict[str, Any]:
    """The page as batch_extract_pages read it before engines: navigate, wait (until stable, or
    a fixed time), get_page_content; its links from the DOM when asked. A `check` (a reading
    to compare with) is not started once the run is stopping: it waited for a browser slot,
    behind other items' checks, and a cooperative cancel of engine auto took 4.7 s, not 1.5."""
    from .. import run_action

    url, robots = args["url"], args.get("obeyRobots", False)
    if robots and not (await run_action("robots", ctx, {"urls": [url]}))["allowed"]:
        raise TaskplateError(
            ErrorCode.URL_NOT_ALLOWED,
            f"robots.txt disallows {url} (or the URL is not allowed)",
            "Leave it out; the site asks automated readers not to read it.",
            {"url": url, "robots": True},
        )
    tabs = args.get("browserTabs")
    async with web.browser_slots(tabs) if tabs else nullcontext():
        if check and ctx.stopping():
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                "the run was canceled",
                "Nothing to do: the page was read over HTTP.",
            )
        return await _rendered(ctx, args, why, robots)


async def _rendered(
    ctx: ActionContext, args: dict[str, Any], why: str, robots: bool
) -> dict[str, Any]:
    """Read in one of the run's browser slots: in the item's tab, opened now if need be."""
    from .. import run_action
    from .get_page_content import SETTLE_QUIET_MS, SETTLE_TIMEOUT_MS

    url = args["url"]
    tab = await ctx.with_browser()
    opened = await run_action(
        "navigate",
        tab,
        {
            "url": url,
            "timeoutMs": args.get("timeoutMs", 30_000),
            "blockResources": args.get("blockResources", True),
            "blockAds": args.get("blockAds", False),
            "maxBodyBytes": args.get("maxBodyBytes", 10_000_000),
        },
    )
    wait_ms = args.get("waitFor", 0)
    if wait_ms > 0:
        await run_action("wait", tab, {"ms": wait_ms})
    else:
        quiet = {"timeoutMs": SETTLE_TIMEOUT_MS, "quietMs": SETTLE_QUIET_MS}
        await run_action("wait_for_stable", tab, quiet)
    wanted = {
        "format": args.get("format", "markdown"),
        "onlyMainContent": args.get("onlyMainContent", True),
    }
    if "maxBytes" in args:
        wanted["maxBytes"] = args["maxBytes"]
    body = await run_action("get_page_content", tab, wanted)
    links = await _links(ctx, tab, robots) if args.get("links", False) else []
    out = {
        "url": opened["url"],
        "status": opened["status"],
        "format": body["format"],
        "title": body["title"],
        "content": body["content"],
        "bytes": body["bytes"],
        "truncated": body["truncated"],
        "pageType": body["pageType"],
        "links": links,
        "engine": "browser",
        "engineReason": why,
    }
    # navigate's own (the host asked to be left alone, the page was slow) and the content's
    warnings = [*opened.get("warnings", []), *body.get("warnings", [])]
    return out | ({"warnings": warnings} if warnings else {})


async def _links(ctx: ActionContext, tab: ActionContext, robots: bool) -> list[str]:
    """The page's links as the browser shows them, normalised; those robots.txt allows when
    it is obeyed. A page whose script left it has none."""
    from taskplate.dsl import url_normalize

    from .. import run_action
    from .get_page_content import SETTLE_QUIET_MS

    field = {"selector": "a[href]", "attr": "href", "type": "url", "all": True}
    # The page was read once stable by the readers' quiet window: its links are read by it too.
    args = {"fields": {"links": field}, "quietMs": SETTLE_QUIET_MS}
    try:
        found = await run_action("extract", tab, args)
    except TaskplateError:
        return []
    hrefs = [h for h in found["values"].get("links") or [] if h and re.match(r"^https?://", h)]
    links = list(dict.fromkeys(url_normalize(h) for h in hrefs))
    if robots and links:
        allowed: list[str] = (await run_action("robots", ctx, {"urls": links}))["allowed"]
        return allowed
    return links


_RESULT_KEYS = (
    "url", "status", "format", "title", "content", "bytes", "truncated", "pageType", "links"
)  # fmt: skip

ACTION = ActionSpec(
    name="read_page",
    level=Level.L0,
    summary="Read one page's content (markdown, html, text or links, main content as "
    "get_page_content) with an engine: http (plain HTTP, no browser), browser (navigate, wait "
    "until stable, read), or auto (over HTTP when the HTML holds the content, in the browser "
    "when the page needs script or its host's first pages read differently both ways). Says "
    "which engine read it and why the browser was chosen.",
    args_schema=args(
        {
            "url": URL,
            "engine": {"enum": ENGINES, "default": "auto"},
            **_schemas.PAGE_CONTENT,
            "waitFor": {
                "type": "integer",
                "minimum": 0,
                "maximum": 60_000,
                "default": 0,
                "description": "In the browser: ms to wait after loading; 0 waits until stable.",
            },
            "timeoutMs": TIMEOUT_MS,
            "blockResources": {"type": "boolean", "default": True},
            "blockAds": {"type": "boolean", "default": False},
            "maxBodyBytes": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50_000_000,
                "default": 10_000_000,
                "description": "Refuse a page larger than this, as it comes or as it decodes"
                " (the read stops there), over HTTP and in the browser alike.",
            },
            "links": {
                "type": "boolean",
                "default": False,
                "description": "Also list the page's links (absolute, normalised).",
            },
            "browserTabs": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "description": "At most this many of the run's pages in the browser at once.",
            },
            "obeyRobots": {
                "type": "boolean",
                "default": False,
                "description": "Read only what robots.txt allows, and list only such links.",
            },
        },
        ["url"],
    ),
    result_schema=result(
        {
            "url": STRING,
            "status": {"type": ["integer", "null"]},
            "format": STRING,
            "title": STRING,
            "content": STRING,
            "bytes": INTEGER,
            "truncated": BOOLEAN,
            "pageType": PAGE_TYPE,
            "links": {"type": "array", "items": STRING},
            "engine": {"enum": ["http", "browser"]},
            "engineReason": NULLABLE_STRING,
        }
    ),
    retryable=frozenset({ErrorCode.NAVIGATION_TIMEOUT}),
    needs_browser=False,
    pure=True,
    run=run,
)
