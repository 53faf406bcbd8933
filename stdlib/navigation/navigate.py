"""The `navigate` action: open a URL in the current tab and report where it landed.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from taskplate.browser import (
    Capture,
    crashed,
    is_crash,
    navigation_failed,
    net_error,
    page_state,
    too_large,
    translate,
    untraced,
    url_host,
)
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._schemas import STRING, TIMEOUT_MS, URL, args, result

if TYPE_CHECKING:
    from playwright.async_api import Page, Response

    from taskplate.browser import HostThrottle

    from .._context import ActionContext

MAX_BODY_BYTES = 10_000_000  # the http engine's default too (fetch, read_page)
ERROR_PAGE = "chrome-error://"  # Chromium's "This site can't be reached"


async def _page_crashed(tab: Any, page: Any) -> bool:
    """A navigation that fails because its renderer died reports the crash a moment later."""
    if tab.crashed:
        return True
    import anyio  # in the functions that wait: dsl validate loads this module for ACTION

    try:
        with anyio.fail_after(1):
            await untraced(lambda: page.evaluate("1"))
    except Exception as exc:
        return bool(tab.crashed or is_crash(exc))
    return False


ABORTED = "ERR_ABORTED"  # replaced, a download, an empty answer, a redirect to javascript:


def arrived(shown: str, asked: str) -> bool:
    """Whether the tab shows the http(s) document asked for, or any other kind of address (a
    fragment, and an empty path against "/", aside): a navigation that ended without an answer
    (the same document, a new fragment) arrived when it is; one elsewhere did not."""
    if not asked.startswith(("http://", "https://")):
        return True
    one, other = urlsplit(shown), urlsplit(asked)
    return (one.scheme, one.netloc.lower(), one.path or "/", one.query) == (
        other.scheme,
        other.netloc.lower(),
        other.path or "/",
        other.query,
    )


def _left_ms(timeout_ms: float, started: float) -> float:
    """What is left of the navigation's time (at least 1 ms)."""
    return max(1.0, timeout_ms - (time.monotonic() - started) * 1000)


async def _landed(tab: Any, page: Any) -> Capture | None:
    """The state of the document the navigation landed on (its title, whether it is the error
    page; its HTML stays in the page, which keeps its copy at load for readers): one small round
    trip, retried while a script moves the page on (its old document is gone before the next
    one can answer); None when it never answered."""
    import anyio

    with anyio.move_on_after(5):
        while True:
            try:
                return await untraced(lambda: page_state(page))
            except Exception as exc:
                if tab.crashed or is_crash(exc):
                    raise crashed(str(exc).splitlines()[0]) from None
            await anyio.sleep(0.05)
    return None


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    url = args["url"]
    await ctx.check_url(url)
    tab = await ctx.tab()
    page = await ctx.page(replacing=True)
    tab.refused, tab.net_error, tab.oversized = None, None, None
    tab.max_body_bytes = args.get("maxBodyBytes", MAX_BODY_BYTES)
    tab.navigating()
    await tab.keep_loads()
    kinds = {"images", "media", "fonts"} if args.get("blockResources") else set()
    await tab.block(frozenset(kinds | ({"ads"} if args.get("blockAds") else set())))
    # Imported here: checking templates loads the actions but needs no Playwright.
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    wait_until, timeout_ms = args.get("waitUntil", "load"), args.get("timeoutMs", 30_000)
    late: str | None = None
    network = ctx.need_session().network
    started = time.monotonic()
    first: Literal["commit", "domcontentloaded"] = (
        "commit" if wait_until == "commit" else "domcontentloaded"
    )
    try:
        # The host's pace (Retry-After, its adaptive delay) counts towards the timeout: the
        # navigation's own ends when a step's would, and says so (NAVIGATION_TIMEOUT). A 429 or
        # 503 is opened again after its Retry-After when that fits in what is left of it.
        response, paced = await network.throttle.asking(
            url,
            lambda: _opened(ctx, tab, page, url, first, timeout_ms, started),
            timeout_ms / 1000 - (time.monotonic() - started),
        )
        if wait_until != first:
            try:
                await page.wait_for_load_state(wait_until, timeout=_left_ms(timeout_ms, started))
            except PlaywrightTimeout:
                # The document is there, parsed; its scripts or requests keep the page from
                # finishing (a script busy for ever, a request that never ends): read as it is.
                late = (
                    f"the page had not finished loading after {timeout_ms} ms (its scripts or"
                    " requests kept it busy); it is read as it is"
                )
    except Exception as exc:
        error = translate(exc, doing=f"opening {url}", timeout_code=ErrorCode.NAVIGATION_TIMEOUT)
        if ERROR_PAGE in str(exc) and not tab.crashed:
            # Cut short on the way (a redirect by script) by Chromium's error page.
            error = await tab.error_page(arriving=True) or navigation_failed(url, "unknown")
        elif net_error(exc) not in (None, ABORTED) and not tab.crashed:
            # Chromium puts up its error page a moment after the failure is reported; the next
            # navigation of this tab was cut short by it (NAVIGATION_FAILED "unknown").
            await tab.error_page(arriving=True)
        # A failed navigation must not leave the last item's page readable, nor go on loading.
        await tab.blank(ending=error.code is ErrorCode.NAVIGATION_TIMEOUT)
        if tab.refused:
            raise TaskplateError(
                ErrorCode.URL_NOT_ALLOWED, tab.refused, "Use a public http(s) URL.", {"url": url}
            ) from None
        if tab.oversized:
            raise too_large(*tab.oversized) from None
        broken = (ErrorCode.EXECUTION_ERROR, ErrorCode.NAVIGATION_FAILED)
        if error.code in broken and await _page_crashed(tab, page):
            error = crashed(f"the page crashed while opening {url}")
        # Imported here: `dsl validate` loads the actions; the network's pace needs anyio.
        from taskplate.browser import through_proxy

        raise through_proxy(error, network.proxy_for(url_host(url) or "")) from None
    if response is not None and response.status == 407 and network.proxy_for(url_host(url) or ""):
        await tab.blank(ending=True)  # the proxy's own page, not the site's: nothing to read
        raise _proxy_refused(url, network.proxy_for(url_host(url) or ""))
    tab.stale = False
    # Where it landed: as the page sent it at load (no round trip), else asked.
    sent = tab.earlier if tab.earlier is not None and not tab.earlier.html else None
    landed = sent or await _landed(tab, page)
    tab.status = response.status if response is not None else None
    if landed is not None and landed.error_page:
        if response is None:
            raise await tab.error_page() or navigation_failed(url, "unknown")
        # The page loaded and its own script has left it already: readers say what they find.
        tab.unsettled = True
        return {"url": response.url, "status": tab.status, "title": ""}
    tab.earlier = tab.earlier or landed  # sent as it left before loading, else as it landed
    tab.unsettled = True
    answer = {"url": page.url, "status": tab.status, "title": landed.title if landed else ""}
    warnings = [*paced, *([late] if late else [])]
    return answer | ({"warnings": warnings} if warnings else {})


def _proxy_refused(url: str, proxy: Any) -> TaskplateError:
    """A proxy's 407, which Chromium shows as the page: NAVIGATION_FAILED naming the proxy."""
    from taskplate.browser import through_proxy

    error = TaskplateError(
        ErrorCode.NAVIGATION_FAILED,
        f"opening {url} failed: the proxy refused the request (407 Proxy Authentication Required)",
        "Check the proxy's user and password.",
        {"url": url, "proxyStatus": 407},
    )
    return through_proxy(error, proxy, proxys=True)


async def _opened(
    ctx: ActionContext,
    tab: Any,
    page: Any,
    url: str,
    first: Literal["commit", "domcontentloaded"],
    timeout_ms: float,
    started: float,
) -> tuple[Response | None, int | None, str | None, list[str]]:
    """The page opened once, after the host's pace: (its answer, status, Retry-After, the
    pace's warnings), as `HostThrottle.asking` takes it."""
    throttle = ctx.need_session().network.throttle
    waited = await throttle.wait(url)
    tab.navigating()  # again when asked again: what the 429's page sent is not kept for readers
    asked = time.monotonic()
    # The tab's document answers are looked at (browser/_guard.py): a redirect to
    # javascript:, which Chromium aborts without a reason, and an answer past
    # maxBodyBytes are refused there and said so by run.
    # The item before's page, left as it was: blanking every such tab first cost a batch a fifth
    # of its speed (docs/runs.md), so only a navigation it spoilt is made again from blank.
    recycled = tab.stale
    try:
        response = await page.goto(url, wait_until=first, timeout=_left_ms(timeout_ms, started))
    except Exception as exc:
        if not (recycled and net_error(exc) == ABORTED):
            raise
        # The page before moved itself on (its own script's navigation) as ours began, and cut
        # ours short: once more from a blank tab, where no script of the page before runs.
        response = await _from_blank(tab, page, url, first, timeout_ms, started)
    if response is None and not arrived(page.url, url):
        # ... or the navigation ended without an answer while the tab still showed that page:
        # read then, a batch item answered the last item's page as its own. Once more from a
        # blank tab too; a second miss is an error, never the page before's text.
        stayed = page.url
        response = await _from_blank(tab, page, url, first, timeout_ms, started)
        if response is None and not arrived(page.url, url):
            await tab.blank(ending=True)
            raise TaskplateError(
                ErrorCode.NAVIGATION_FAILED,
                f"opening {url} failed: the tab stayed on {stayed}, whose own script moved it",
                "Try again; if it happens again, open the page in a new tab.",
                {"url": url},
            )
    notes = [w for w in (waited, _paced(throttle, url, response, time.monotonic() - asked)) if w]
    if response is None:
        return None, None, None, notes
    return response, response.status, response.headers.get("retry-after"), notes


async def _from_blank(
    tab: Any,
    page: Page,
    url: str,
    first: Literal["commit", "domcontentloaded"],
    timeout_ms: float,
    started: float,
) -> Response | None:
    """The navigation made again from about:blank, in what is left of its time."""
    await tab.blank(ending=True)
    tab.navigating()
    return await page.goto(url, wait_until=first, timeout=_left_ms(timeout_ms, started))


def _paced(
    throttle: HostThrottle, url: str, response: Response | None, took_s: float
) -> str | None:
    """The host's pace learned from its answer; a warning when it asked to be left alone."""
    if response is None:
        return None
    return throttle.answered(url, response.status, response.headers.get("retry-after"), took_s)


ACTION = ActionSpec(
    name="navigate",
    level=Level.L0,
    summary="Open a URL in the current tab; answers the final URL, HTTP status and title.",
    args_schema=args(
        {
            "url": URL,
            "waitUntil": {
                "enum": ["load", "domcontentloaded", "networkidle", "commit"],
                "default": "load",
            },
            "timeoutMs": TIMEOUT_MS,
            "blockResources": {
                "type": "boolean",
                "default": False,
                "description": "Load no images, media or fonts (faster reading).",
            },
            "blockAds": {
                "type": "boolean",
                "default": False,
                "description": "Refuse known ad and tracker hosts.",
            },
            "maxBodyBytes": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50_000_000,
                "default": MAX_BODY_BYTES,
            },
        },
        ["url"],
    ),
    result_schema=result({"url": STRING, "status": {"type": ["integer", "null"]}, "title": STRING}),
    retryable=frozenset({ErrorCode.NAVIGATION_TIMEOUT}),
    run=run,
)
