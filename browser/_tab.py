"""A tab of a session: its page with what smart waiting, error reports and popups need to know
of it (requests in flight, dialogs, its last failed load). Opening and closing tabs is Session's.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
from playwright.async_api import CDPSession, Dialog, Page, Request

from taskplate.contract import ErrorCode, TaskplateError

from ._capture import LOADED_BINDING, Capture
from ._errors import is_crash, navigation_failed, too_large
from ._untraced import untraced
from .traffic import DEFAULT_MAX_BODY_BYTES, blocked_url_patterns

POPUP_GRACE_S = 2.0  # a window opened this long after a click or key press is the user's
# Also tells the page's watcher the reader is done with it: it sends no copy of itself as the tab
# leaves it for the next item's page (Tab.keep_loads).
_FORGET = """() => { try { sessionStorage.clear(); } catch (e) {} window.name = '';
  if (window.__taskplateWatch) window.__taskplateWatch.done = true; }"""
# null on an ordinary page; on the error page its net error (ERR_…), or '' before it is shown.
_ERROR_CODE = """() => location.href.startsWith('chrome-error://')
  ? ((document.querySelector('.error-code') || {}).textContent || '') : null"""


@dataclass
class Tab:
    """One page of a session, with what smart waiting and error reports need to know of it."""

    id: str
    page: Page
    inflight: int = 0
    last_network: float = field(default_factory=time.monotonic)
    dialogs: list[dict[str, str]] = field(default_factory=list)
    refused: str | None = None  # the last URL the policy refused in this tab, and why
    redirects_guarded: bool = False  # each document's answer is looked at (_guard.py)
    # A document's answer larger than this, decoded, is refused before the page sees it
    # (_document_body.py); the last top document refused so, and the bound it passed.
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    oversized: tuple[str, int] | None = None
    status: int | None = None  # the HTTP status of the last navigation
    crashed: bool = False
    opened_by: str | None = None  # the tab whose page opened this one (a popup)
    stale: bool = False  # still shows a finished item's page; blanked before anyone reads it
    net_error: tuple[str, str] | None = None  # (url, ERR_…) of the last failed page load
    items_served: int = 0  # forEach items this tab has served (it is retired after a number)
    blocking: frozenset[str] = frozenset()  # kinds of requests refused (images, ads, …)
    _cdp: CDPSession | None = None  # the tab's own DevTools session, opened when first needed
    _network: bool = False  # its Network domain is on (for blocking)
    inputs: int = 0  # user-input actions (click, press, …) running in this tab now
    # Actions that may take the page elsewhere (navigate, click, …) running in this tab now,
    # and how many ever began: a read that meets a navigation tells its own page's script
    # from another step of the run.
    moving: list[str] = field(default_factory=list)
    moves_begun: int = 0
    input_ended: float = -POPUP_GRACE_S  # when the last one ended (monotonic)
    endpoint: str | None = None  # the remote browser endpoint the tab lives in (None: local)
    # The page as it stood when its navigation landed: its state (navigate), and its HTML once
    # the page sent itself as its own script left it (to a page that fails): what a reader gets
    # back then. None once anything acted on the page for the user.
    earlier: Capture | None = None
    _sent: anyio.Event = field(default_factory=anyio.Event)  # a page sent itself as it left
    keeping: bool = False  # a navigation of ours is under way or landed: keep what loads
    # When it began (epoch ms): a document that sends itself as its script leaves it before it
    # loaded is kept only when it is younger (the page our navigation opened, not the last one).
    navigated_at: float = 0.0
    _keeping: bool = False  # the binding is installed
    unsettled: bool = False  # navigated and not waited on since: a reader waits first

    async def forget_page_state(self) -> None:
        """Clear what a tab carries from page to page (sessionStorage, window.name), so the
        next page opened in it starts as in a new tab. Best effort: a dead page keeps nothing."""
        with anyio.move_on_after(2), contextlib.suppress(Exception):
            await untraced(lambda: self.page.evaluate(_FORGET))

    async def _devtools(self) -> CDPSession:
        if self._cdp is None:
            self._cdp = await untraced(lambda: self.page.context.new_cdp_session(self.page))
        return self._cdp

    async def keep_loads(self) -> None:
        """From now on, each top document of the tab sends its state as it loads (title, where,
        its words; no HTML), and, when its own script leaves it, itself (its capture as it
        loaded, before its own load handlers ran, or as it was when it left before loading):
        `earlier` then holds it once the page is gone, where no reader can ask it (a DevTools
        binding). A page read where it is crosses only at the read."""
        if self._keeping:
            return
        cdp = await self._devtools()
        cdp.on("Runtime.bindingCalled", self._loaded)
        await cdp.send("Runtime.enable")  # bindingCalled reaches only sessions that enabled it
        await cdp.send("Runtime.addBinding", {"name": LOADED_BINDING})
        self._keeping = True

    def _loaded(self, event: dict[str, Any]) -> None:
        if event.get("name") != LOADED_BINDING or not self.keeping:
            return
        with contextlib.suppress(ValueError, KeyError, TypeError):
            sent = json.loads(event["payload"])
            loaded = Capture.from_json(sent)
            if loaded.error_page or loaded.url == "about:blank":
                return
            if loaded.document < self.navigated_at:
                return  # a page from before our navigation
            kept = self.earlier
            if sent.get("landed"):  # its state as it loaded: kept until it sends its HTML
                if kept is None or (not kept.html and kept.document <= loaded.document):
                    self.earlier = loaded
                return
            if (
                kept is not None
                and kept.html
                and not (sent.get("loaded") and kept.document <= loaded.document)
            ):
                return  # left before loading: only the page of our navigation, if nothing else
            self.earlier = loaded
            self._sent.set()

    async def sent_as_it_left(self, within_s: float = 1.0) -> Capture | None:
        """`earlier` with its HTML: the page sent itself as its script left it, which may reach
        us a moment after the tab shows where it went; None when it never did (within_s)."""
        with anyio.move_on_after(within_s):
            while self.earlier is not None and not self.earlier.html:
                await self._sent.wait()
                self._sent = anyio.Event()
        return self.earlier if self.earlier is not None and self.earlier.html else None

    def navigating(self) -> None:
        """A navigation of ours begins: what loads from now on is kept for readers."""
        self.earlier, self.unsettled, self.keeping = None, False, True
        self.navigated_at = time.time() * 1000

    async def block(self, kinds: frozenset[str]) -> None:
        """Refuse these kinds of requests in this tab from now on (an empty set: none)."""
        if kinds == self.blocking:
            return
        cdp = await self._devtools()
        if not self._network:
            await cdp.send("Network.enable")
            self._network = True
        await cdp.send("Network.setBlockedURLs", {"urls": blocked_url_patterns(kinds)})
        self.blocking = kinds

    async def collect_garbage(self) -> None:
        """A full garbage collection in the tab's renderer, between two pages.

        A renderer left alone collects lazily: on a machine with free memory, the script and DOM
        garbage of every page it showed stays mapped (about 4 MB a page here), so a tab reused
        for hundreds of pages grew to hundreds of MB (bench/batch.py). Collecting while the tab
        is idle keeps it at its working size. Best effort: a dead page has nothing to keep."""
        with anyio.move_on_after(2), contextlib.suppress(Exception):
            await (await self._devtools()).send("HeapProfiler.collectGarbage")

    @contextlib.contextmanager
    def user_input(self) -> Iterator[None]:
        """Marks an action acting for the user: windows the page opens meanwhile are wanted."""
        self.inputs += 1
        self.earlier = None  # what the page shows now follows from what the user did
        self.unsettled = self.keeping = False
        try:
            yield
        finally:
            self.inputs -= 1
            self.input_ended = time.monotonic()

    @contextlib.contextmanager
    def moved_by(self, action: str) -> Iterator[None]:
        """Marks an action that may navigate the page while it runs."""
        self.moving.append(action)
        self.moves_begun += 1
        try:
            yield
        finally:
            self.moving.remove(action)

    def user_input_recently(self) -> bool:
        return self.inputs > 0 or time.monotonic() - self.input_ended < POPUP_GRACE_S

    async def blank(self, *, ending: bool = False) -> None:
        """Replace a stale page with about:blank, so nothing of the last item can be read;
        `ending` also ends a navigation still under way (one that timed out), which would go on
        in the tab: the next navigation to the same address (a retry) then failed at once with
        the old one's ERR_ABORTED instead of loading.

        A tab that cannot be blanked (crashed, closed) is not readable either: no error."""
        if self.stale or ending:
            with contextlib.suppress(Exception):
                await untraced(lambda: self.page.goto("about:blank", wait_until="commit"))
            self.stale = False
            self.earlier, self.unsettled, self.keeping = None, False, False

    def _request_started(self, _: Request) -> None:
        self.inflight += 1
        self.last_network = time.monotonic()

    def _request_ended(self, _: Request) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.last_network = time.monotonic()

    def _request_failed(self, request: Request) -> None:
        self._request_ended(request)
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            reason = (request.failure or "").removeprefix("net::").split()[0:1]
            if reason != ["ERR_ABORTED"]:  # replaced by another navigation: no error page
                self.net_error = (request.url, reason[0] if reason else "an unknown network error")

    def may_show_error_page(self) -> bool:
        """Cheap: a page load of this tab failed, or Playwright already saw the error page.

        Navigations the caller waited on are checked by asking the page (error_page)."""
        return self.net_error is not None or self.page.url.startswith("chrome-error://")

    async def error_page(self, *, arriving: bool = False) -> TaskplateError | None:
        """NAVIGATION_FAILED when the tab shows Chromium's own error page, else None.

        Asks the page itself: Playwright's idea of the URL follows events that may lag behind.
        `arriving`: the error page is known to be coming (a navigation was cut short by it)."""
        code: str | None = None
        with anyio.move_on_after(2 if arriving else 0.5):
            while code is None:
                try:
                    code = await untraced(lambda: self.page.evaluate(_ERROR_CODE))
                except Exception as exc:
                    if not arriving or is_crash(exc) or self.crashed:
                        return None  # closed or crashed: whoever reads it next will know
                if code is None and not arriving:
                    return None
                if code is None:
                    await anyio.sleep(0.05)
        if code is None:
            return None
        if self.refused:  # the URL policy stopped the page load: say so, not "unreachable"
            return TaskplateError(
                ErrorCode.URL_NOT_ALLOWED, self.refused, "Use a public http(s) URL."
            )
        if self.oversized:  # so did the size bound
            return too_large(*self.oversized)
        # The failed request's event and the error page's text may both come a moment later.
        with anyio.move_on_after(2):
            while self.net_error is None and not code:
                await anyio.sleep(0.05)
                with contextlib.suppress(Exception):
                    code = await untraced(lambda: self.page.evaluate(_ERROR_CODE)) or ""
        url, reason = self.net_error or ("the page", code)
        return navigation_failed(url, reason or "an unknown network error")

    async def lost(self, error: TaskplateError) -> TaskplateError:
        """BROWSER_DISCONNECTED when the tab's remote browser went away (its endpoint is down),
        else the crash `error` itself."""
        browser = self.page.context.browser
        if self.endpoint is None:
            return error
        # The connection's end reaches pages first and the browser a moment later.
        with anyio.move_on_after(1):
            while browser is not None and browser.is_connected():
                await anyio.sleep(0.02)
        if browser is not None and browser.is_connected():
            return error
        from ._endpoints import disconnected

        return disconnected(self.endpoint)

    async def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append({"type": dialog.type, "message": dialog.message})
        with contextlib.suppress(Exception):
            await dialog.dismiss()

    def _crash(self, _: Page) -> None:
        self.crashed = True

    def watch(self) -> None:
        self.page.on("request", self._request_started)
        self.page.on("requestfinished", self._request_ended)
        self.page.on("requestfailed", self._request_failed)
        self.page.on("dialog", self._dialog)
        self.page.on("crash", self._crash)
