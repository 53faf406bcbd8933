"""The `get_page_content` action: the page as Markdown, HTML, text or a list of links.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from taskplate.browser import SHRUNK, capture_page, element_html, navigation_failed
from taskplate.contract import ErrorCode, Level
from taskplate.dsl import ActionSpec

from .._elements import find
from .._schemas import (
    BOOLEAN,
    INTEGER,
    PAGE_CONTENT,
    STRING,
    args,
    css_selector,
    result,
)

if TYPE_CHECKING:
    from taskplate.browser import Tab

    from .._context import ActionContext

# A page that showed at least this many words when it landed had something to read (the
# conversion then says whether it was main content).
READABLE_WORDS = 10
# How a page is waited on before it is read (here right after `navigate`, and by read_page, so
# batch_extract_pages, scrape and crawl_site): the smart wait with a 200 ms quiet window where
# wait_for_stable's own default is 500. The watcher already waits out every request, short timer
# and animation frame it sees; the window is only for what it cannot see (intervals, message
# channels, observers), which shows within a few frames, as the 100 ms it watches a page that
# is quiet since loading (SETTLE_MS). A page written by script 50 ms after loading was read in
# about 400 ms instead of 700: 6.7 pages/s instead of 4.2 on 30 such pages, 3 tabs at a time;
# the 90 real pages of bench/content.py, all read in the browser, gave the same Markdown at 200
# as at 500.
SETTLE_TIMEOUT_MS, SETTLE_QUIET_MS = 10_000, 200
_WORD = re.compile(r"\w+")
WAIT_FOR_STABLE = {
    "type": "boolean",
    "default": True,
    "description": ("After navigate, wait until stable; false: read at once."),
}


def truncate(text: str, max_bytes: int | None) -> tuple[str, int, bool]:
    """The text cut to at most max_bytes of UTF-8 on a character boundary, its size, and whether cut."""
    data = text.encode()
    if max_bytes is None or len(data) <= max_bytes:
        return text, len(data), False
    cut = data[:max_bytes].decode("utf-8", errors="ignore")
    return cut, len(cut.encode()), True


def render_typed(html: str, url: str, fmt: str, only_main: bool) -> tuple[str, bool, str]:
    """The page's content in `fmt` (markdown, text, links or html; its main content when
    `only_main`), whether it is the main content, and the kind of page it is (`pageType`), from
    one parse, in one call (one trip to the conversion worker)."""
    from ..content import read_typed

    return read_typed(html, url, fmt, only_main)


async def settle(tab: Tab, args: dict[str, Any]) -> list[str]:
    """A page read right after `navigate` is first waited on as batch_extract_pages waits
    (the smart wait), unless `waitForStable` is false or the caller waited already."""
    if not tab.unsettled or not args.get("waitForStable", True):
        return []
    from taskplate.browser import wait_for_stable

    settled = await wait_for_stable(tab, SETTLE_TIMEOUT_MS, SETTLE_QUIET_MS)
    tab.unsettled = False
    if settled.stable:
        return []
    busy = "; ".join(settled.busy)
    return [f"the page was still busy after {settled.waited_ms} ms ({busy}); read as it is"]


async def convert_page(html: str, url: str, fmt: str, only_main: bool) -> tuple[str, bool, str]:
    """(content, is_main, pageType) of the page's HTML."""
    from ..content import convert, page_type  # multiprocessing: not for `dsl validate`

    if fmt == "html" and not only_main:
        return html, True, await convert(page_type, html)
    # Extraction is CPU work of tens of milliseconds: in the runtime's warm worker process,
    # which spares the event loop the GIL (bench/content.py measures its lag); in a thread
    # while the worker starts, so its start (a second or more) holds no batch back.
    return await convert(render_typed, html, url, fmt, only_main)


# What an answer that is not the page's main content says: the main content found was empty or
# under a share of the page's words (stdlib/content/_items.py `fallback`), and this is the page's
# widest region of text instead, or the whole page when no region stands out.
NO_MAIN = (
    "no main content was found (or too little of the page's text); this is the page's widest"
    " region of text, or the whole page when none stands out"
)


# What an answer with no word at all says instead: there was no region of text to fall back on.
NO_TEXT = "the page shows no text to read: no main content and no region of text"


def _words(text: str) -> int:
    return len(_WORD.findall(text))


def has_words(content: str, fmt: str) -> bool:
    """Whether an answer holds a word (an HTML answer's tags are not words)."""
    return _WORD.search(re.sub(r"<[^>]*>", " ", content) if fmt == "html" else content) is not None


def not_main(content: str, fmt: str) -> str:
    """The warning of an answer that is not the page's main content: the widest region, or
    nothing at all."""
    return NO_MAIN if has_words(content, fmt) else NO_TEXT


async def read_page(tab: Tab, fmt: str, only_main: bool) -> tuple[str, str, bool, str, list[str]]:
    """(content, title, is_main, pageType, warnings) of the tab's page as it is now, or as it was when it
    landed if its own script has since taken the content away: sent the tab to a page that
    could not be opened (Chromium's error page, known by its document, never by its wording),
    or left a much shorter notice in its place. A script that took the tab to a page that
    loaded is followed. An error page with nothing read before it is NAVIGATION_FAILED."""
    now, at_load = await capture_page(tab.page)
    if now.error_page:
        url, reason = tab.net_error or ("a page", "the browser showed its error page")
        failed = await tab.error_page(arriving=True) or navigation_failed(url, reason)
        # A page sent where the URL policy forbids is reported, never read past.
        refused = failed.code is ErrorCode.URL_NOT_ALLOWED
        earlier = None if refused else await tab.sent_as_it_left()
        if earlier is None or earlier.words < READABLE_WORDS:
            raise failed
        content, is_main, kind = await convert_page(earlier.html, earlier.url, fmt, only_main)
        if only_main and not is_main:
            raise failed
        gone_to = (failed.details or {}).get("url", "another page")
        reason = (failed.details or {}).get("netError", failed.message)
        warning = (
            f"after loading, the page's own script sent the tab to {gone_to}, which could not be"
            f" opened ({reason}); this is the content the page had before"
        )
        return content, earlier.title, is_main, kind, [warning]
    content, is_main, kind = await convert_page(now.html, now.url, fmt, only_main)
    if at_load is not None:  # the page shows less than SHRUNK of the words it had at load
        before, was_main, was = await convert_page(at_load.html, at_load.url, fmt, only_main)
        if (was_main or not only_main) and _words(content) < SHRUNK * _words(before):
            warning = (
                f"after loading, the page's own script replaced its content with a much shorter"
                f" one ({now.words} words where it had {at_load.words}); this is the content it"
                " had before"
            )
            return before, at_load.title, was_main, was, [warning]
    return content, now.title, is_main, kind, []


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    fmt = args.get("format", "markdown")
    only_main = args.get("onlyMainContent", True) and "selector" not in args
    tab = await ctx.tab()
    # The page's own state is checked as it is read (read_page): a tab that shows the error page
    # may still have what its page showed before its script left.
    page = await ctx.page(error_page_ok="selector" not in args and tab.earlier is not None)
    warnings = await settle(tab, args)
    if "selector" in args:
        html, title = await element_html(await find(page, args)), await page.title()
        content, is_main, kind = await convert_page(html, page.url, fmt, only_main)
    else:
        content, title, is_main, kind, kept = await read_page(tab, fmt, only_main)
        warnings += kept
    content, size, truncated = truncate(content, args.get("maxBytes"))
    if only_main and not is_main:
        warnings.append(not_main(content, fmt))
    if truncated:
        warnings.append(f"the content was cut at {args['maxBytes']} bytes")
    result: dict[str, Any] = {
        "format": fmt,
        "title": title,
        "content": content,
        "bytes": size,
        "truncated": truncated,
        "pageType": kind,
    }
    if warnings:
        result["warnings"] = warnings
    return result


ACTION = ActionSpec(
    name="get_page_content",
    level=Level.L0,
    summary=(
        "The page's content as markdown, html, text or links, optionally only the main content,"
        " and its title."
    ),
    args_schema=args(
        {
            **PAGE_CONTENT,
            "selector": css_selector("Only this element's content."),
            "waitForStable": WAIT_FOR_STABLE,
        }
    ),
    result_schema=result(
        {
            "format": STRING,
            "title": STRING,
            "content": STRING,
            "bytes": INTEGER,
            "truncated": BOOLEAN,
            # one of PAGE_TYPE's values; a string in the schema: the default tools/list's room
            "pageType": STRING,
        }
    ),
    pure=True,
    run=run,
)
