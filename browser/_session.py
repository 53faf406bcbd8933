"""Sessions and tabs: an isolated browser context each, with tracked pages, caps, dialogs
dismissed and recorded, popups adopted as tabs and the URL policy on every request.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from playwright.async_api import BrowserContext, CDPSession, Dialog, Page, Request

from taskplate.contract import ErrorCode, TaskplateError

from ._blocking import blocked_url_patterns
from ._capture import LOADED_BINDING, Capture
from ._cleanup import cleanup
from ._errors import crashed, is_crash, navigation_failed
from ._har import HarRecording
from ._policy import UrlPolicy, redirect_elsewhere
from ._runtime import BrowserRuntime
from ._untraced import untraced
from ._watcher import WATCHER

MAX_TABS_PER_SESSION = 20
MAX_TABS_PER_PROCESS = 50
# A session's context serves this many pages of a loop, then is retired: the next pages open in
# a fresh context seeded with its storage state (cookies, localStorage), and it closes when the
# last page still running in it is done, as Crawlee's retireBrowserAfterPageCount. What a
# context keeps from page to page (its in-memory HTTP and code caches, closed targets) cannot
# add up over a long batch.
CONTEXT_RETIRES_AFTER = 500
RETIRE_TIMEOUT_S = 15  # bounds handing the state on and closing the retired context
GONE_KEPT = 64  # closed tabs remembered, to tell a lost tab from an unknown one
POPUP_GRACE_S = 2.0  # a window opened this long after a click or key press is the user's
_FORGET = "() => { try { sessionStorage.clear(); } catch (e) {} window.name = ''; }"
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
    # The page as it stood when its navigation landed: what a reader gets back when the page's
    # own script then takes its content away (sends the tab to a page that fails, or puts a
    # short notice in its place). None once anything acted on the page for the user.
    earlier: Capture | None = None
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
        """From now on, each top document of the tab sends itself (its capture) as it loads,
        before its own load handlers run: `earlier` then holds it even if a script leaves the
        page a moment later, before anyone could have asked it (a DevTools binding)."""
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
            if sent.get("left") and (
                self.earlier is not None or loaded.document < self.navigated_at
            ):
                return  # left before loading: only the page of our navigation, if nothing else
            self.earlier = loaded

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

    async def blank(self) -> None:
        """Replace a stale page with about:blank, so nothing of the last item can be read.

        A tab that cannot be blanked (crashed, closed) is not readable either: no error."""
        if self.stale:
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
        # The failed request's event and the error page's text may both come a moment later.
        with anyio.move_on_after(2):
            while self.net_error is None and not code:
                await anyio.sleep(0.05)
                with contextlib.suppress(Exception):
                    code = await untraced(lambda: self.page.evaluate(_ERROR_CODE)) or ""
        url, reason = self.net_error or ("the page", code)
        return navigation_failed(url, reason or "an unknown network error")

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


class Session:
    """An isolated context (cookies, storage) with up to 20 tabs; closes every page it opened."""

    def __init__(
        self,
        registry: Sessions,
        session_id: str,
        policy: UrlPolicy,
        seed: Any,
        recording: HarRecording | None = None,
    ) -> None:
        self.registry = registry
        # Every context of the session recorded into a HAR file of this recording's folder
        # (create_session's `record`): save_template makes a first test case of them.
        self.recording = recording
        self.id = session_id
        self.policy = policy
        self.seed = seed  # the storageState it started from
        self.context: BrowserContext | None = None
        self.tabs: dict[str, Tab] = {}
        self.main_tab: str | None = None
        self.created_at = time.time()
        self.warnings: list[str] = []
        # Tabs closed lately, by id: one asked for after its browser went away is a lost tab.
        self._gone: dict[str, Tab] = {}
        self.endpoint: str | None = None  # the remote endpoint of the current context
        self.used = False  # a tab was opened in the current context (work may have been done)
        self._context_closed = False
        self.profile_id: str | None = None  # the profile the session was seeded from
        self.profile_version = 0  # and the snapshot version it started with
        self.retire_after = CONTEXT_RETIRES_AFTER
        self.pages_served = 0  # loop pages served by the current context
        self.retirements = 0
        # Retired contexts still running pages, each with the cookies it handed on.
        self._retired: list[tuple[BrowserContext, list[Any]]] = []
        self._opening: list[BrowserContext] = []  # contexts a tab is being opened in now
        # Told when a context is retired and before a retired one closes (a run's trace follows
        # the session from one context to the next): objects with `context_retired(old, new)`
        # and `context_closing(old)`, both coroutines that never raise.
        self.context_watchers: list[Any] = []
        self._counter = 0
        self._last_main: str | None = None
        self._lock = anyio.Lock()

    # -- life cycle ---------------------------------------------------------------------------
    async def open(self) -> None:
        self.context = await self._new_context(self.seed)
        self.pages_served = 0
        self.used = False
        self._context_closed = False
        endpoint = self.registry.runtime.endpoint_of(self.context.browser)
        self.endpoint = endpoint.url if endpoint is not None else None

    async def _new_context(self, state: Any) -> BrowserContext:
        context = await self.registry.runtime.new_context(
            self.recording,
            storage_state=state,
            accept_downloads=False,
            viewport={"width": 1280, "height": 720},
        )
        await context.add_init_script(WATCHER)  # before any page of the session exists
        context.on("page", self._adopt_popup)
        context.on("close", self._context_gone)
        return context

    async def cookies(self) -> list[dict[str, Any]]:
        """The session's cookies as storageState holds them: its live context's, else those it
        was seeded with (a session that opened no tab has no context yet)."""
        if self.context is not None and self._alive():
            with contextlib.suppress(Exception):  # gone meanwhile: what it was seeded with
                return [dict(c) for c in await self.context.cookies()]
        return list((self.seed or {}).get("cookies", []))

    def _context_gone(self, context: BrowserContext) -> None:
        if context is self.context:
            self._context_closed = True

    async def count_page(self) -> None:
        """One more page of a loop: after `retire_after` of them, the context is retired.

        Tabs opened from now on open in a fresh context seeded with the current storage state
        (cookies and localStorage: a login stays); pages still running in the retired one go
        on undisturbed, and it is closed when its last tab is (see `close_drained`)."""
        context = await self.ensure_open()
        self.pages_served += 1
        if self.pages_served <= self.retire_after:
            return
        async with self._lock:
            if self.context is not context:  # retired meanwhile by another item
                return
            from ._profiles import with_indexed_db

            try:
                with anyio.fail_after(RETIRE_TIMEOUT_S):
                    state = await context.storage_state(indexed_db=with_indexed_db())
                    self.context = await self._new_context(state)
            except Exception:  # the browser is going down (ensure_open reopens the session)
                self.pages_served = 0
                return
            self.pages_served = 1
            self.retirements += 1
            self._retired.append((context, list(state.get("cookies", []))))
            for watcher in list(self.context_watchers):
                await watcher.context_retired(context, self.context)
        await self.close_drained()

    def in_current_context(self, tab: Tab) -> bool:
        return tab.page.context is self.context

    async def close_drained(self) -> None:
        """Close the retired contexts none of whose tabs is open any more; cookies they set or
        changed after handing on their state are carried to the current context."""
        for entry in list(self._retired):
            old, handed_on = entry
            if entry not in self._retired:  # closed meanwhile by another item's call
                continue
            if any(t.page.context is old for t in self.tabs.values()) or any(
                c is old for c in self._opening
            ):
                continue
            self._retired.remove(entry)
            for watcher in list(self.context_watchers):  # each bounds its own work
                await watcher.context_closing(old)
            with anyio.CancelScope(shield=True), anyio.move_on_after(RETIRE_TIMEOUT_S):
                with contextlib.suppress(Exception):
                    changed = [c for c in await old.cookies() if c not in handed_on]
                    if changed and self.context is not None:
                        await self.context.add_cookies(changed)  # type: ignore[arg-type]
                with contextlib.suppress(Exception):
                    await old.close()

    async def ensure_open(self) -> BrowserContext:
        """The live context; after a browser crash, a fresh one from the session's seed."""
        async with self._lock:
            if self.context is not None and self._alive():
                return self.context
            if self.context is not None:
                if self.used and self.endpoint is not None:
                    self.warnings.append(
                        f"the browser at {self.endpoint} went away; the session reopened in "
                        "another endpoint's browser from its initial state"
                    )
                elif self.used:
                    self.warnings.append(
                        "the browser restarted; the session reopened from its initial state"
                    )
                self.registry.forget_tabs(self)
                self._gone.update(self.tabs)
                self.tabs.clear()
                self.main_tab = None
                self._retired.clear()  # they went down with the browser
            await self.open()
            assert self.context is not None
            return self.context

    def _alive(self) -> bool:
        assert self.context is not None
        browser = self.context.browser
        return not self._context_closed and (browser is None or browser.is_connected())

    async def lost(self, tab_id: str | None, error: TaskplateError) -> TaskplateError:
        """A crash seen by an action, told apart: BROWSER_DISCONNECTED when the tab's remote
        browser went away (its endpoint is down), else the error itself."""
        tab_id = tab_id or self.main_tab or self._last_main
        tab = self.tabs.get(tab_id) or self._gone.get(tab_id) if tab_id else None
        if tab is None or tab.endpoint is None:
            return error
        browser = tab.page.context.browser
        # The connection's end reaches pages first and the browser a moment later.
        with anyio.move_on_after(1):
            while browser is not None and browser.is_connected():
                await anyio.sleep(0.02)
        if browser is not None and browser.is_connected():
            return error
        from ._endpoints import disconnected

        return disconnected(tab.endpoint)

    async def close(self, keep_recording: bool = False) -> None:
        """Every context closed (each writes its HAR then, if recorded); the recording's folder
        removed unless `keep_recording` (its taker removes it)."""
        self.registry.forget_tabs(self)
        self.tabs.clear()
        context, self.context = self.context, None
        retired, self._retired = [c for c, _ in self._retired], []
        try:
            for one in [*retired, context]:
                if one is not None:
                    with cleanup():
                        await one.close()
        finally:
            if self.recording is not None and not keep_recording:
                shutil.rmtree(self.recording.folder, ignore_errors=True)

    # -- tabs ---------------------------------------------------------------------------------
    async def new_tab(self) -> Tab:
        """A new tab; if the session's remote browser went away, the session is opened again
        in another endpoint's browser and the tab there (nothing was done in it yet)."""
        try:
            return await self._new_tab()
        except TaskplateError as exc:
            if exc.code is not ErrorCode.PAGE_CRASHED or self.endpoint is None:
                raise
            with anyio.move_on_after(1):  # the connection's end reaches the browser last
                while self.context is not None and self._alive():
                    await anyio.sleep(0.02)
            if self.context is not None and self._alive():
                raise
        return await self._new_tab()  # nothing was done in the tab: in another endpoint

    async def _new_tab(self) -> Tab:
        context = await self.ensure_open()
        self.registry.reserve_tab(self)
        page: Page | None = None
        self._opening.append(context)  # not drained while a page is being opened in it
        try:
            page = await context.new_page()
            tab = await self._register(page)
            self.used = True
            return tab
        except BaseException as exc:  # cancelled (a run's timeout) included: nothing may leak
            if not any(t.page is page for t in self.tabs.values()):
                self.registry.release_tab()
                if page is not None:
                    with cleanup():
                        await page.close()
            if isinstance(exc, Exception) and is_crash(exc):
                raise crashed(str(exc).splitlines()[0]) from None
            raise
        finally:
            self._opening.remove(context)

    async def _register(self, page: Page) -> Tab:
        self._counter += 1
        tab = Tab(f"tab_{self._counter}", page, endpoint=self.endpoint)
        tab.watch()
        self.tabs[tab.id] = tab
        page.on("close", lambda _: self._closed(tab.id))
        await self._guard(tab)
        return tab

    def _closed(self, tab_id: str) -> None:
        tab = self.tabs.pop(tab_id, None)
        if tab is not None:
            self.registry.release_tab()
            self._gone[tab_id] = tab
            if len(self._gone) > GONE_KEPT:
                del self._gone[next(iter(self._gone))]
        if self.main_tab == tab_id:
            self.main_tab = None

    async def _adopt_popup(self, page: Page) -> None:
        """Pages opened by a page (target=_blank, window.open) become tabs of the session."""
        opener = await page.opener()
        if opener is None or any(t.page is page for t in self.tabs.values()):
            return
        opener_tab = next((t for t in self.tabs.values() if t.page is opener), None)
        if opener_tab is None or not opener_tab.user_input_recently():
            # Chromium's popup blocker lets a page open windows after any evaluate (it counts
            # as a user gesture), and a remote browser may have none: windows are ours to judge.
            self.warnings.append(f"a window the page opened by itself ({page.url}) was closed")
            with contextlib.suppress(Exception):
                await page.close()
            return
        if not self.registry.has_room(self):
            self.warnings.append(f"a popup to {page.url} was closed: the tab limit is reached")
            await page.close()
            return
        self.registry.reserve_tab(self)
        tab = await self._register(page)
        tab.opened_by = opener_tab.id
        # A popup's first request may leave before its guard is attached: check where it went.
        why = await self.policy.refusal_async(page.url) if page.url != "about:blank" else None
        if why:
            self.warnings.append(f"a popup to {page.url} was closed: {why}")
            await self.close_tab(tab.id)

    def tab(self, tab_id: str) -> Tab:
        tab = self.tabs.get(tab_id)
        gone = self._gone.get(tab_id) if tab is None else None
        browser = gone.page.context.browser if gone is not None else None
        if gone is not None and browser is not None and not browser.is_connected():
            if gone.endpoint is not None:
                from ._endpoints import disconnected

                raise disconnected(gone.endpoint)
            raise crashed(f"tab {tab_id} was lost when the browser crashed")
        if tab is None:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f'session {self.id} has no tab "{tab_id}"',
                f"Open tabs: {', '.join(self.tabs) or 'none'}; create one with create_tab.",
            )
        return tab

    async def main(self) -> Tab:
        """The session's main tab, opened on first use (and again if it was closed)."""
        await self.ensure_open()
        if self.main_tab is None or self.main_tab not in self.tabs:
            self.main_tab = self._last_main = (await self.new_tab()).id
        return self.tabs[self.main_tab]

    async def close_tab(self, tab_id: str) -> None:
        tab = self.tab(tab_id)
        with cleanup():
            await tab.page.close()
        self._closed(tab_id)
        if self._retired:
            await self.close_drained()

    # -- URL policy ---------------------------------------------------------------------------
    async def _guard(self, tab: Tab) -> None:
        """Check every request of the tab, redirect hops included, in the browser itself; and
        refuse a page's redirect to another scheme (javascript:, data:, file:), which Chromium
        ends without saying why (ERR_ABORTED for javascript:), as URL_NOT_ALLOWED.

        Playwright's routes never see redirects, so the tab gets its own DevTools session with
        request interception: each request (and each hop of a redirect chain) pauses until the
        policy has looked at its URL, and a refused one fails before anything is sent (when the
        policy is enforced); each document's answer pauses until its Location is looked at."""
        assert self.context is not None
        cdp = await self.context.new_cdp_session(tab.page)

        async def paused(event: dict[str, Any]) -> None:
            url = event["request"]["url"]
            try:
                if "responseStatusCode" in event:
                    why = _redirect_elsewhere(url, event)
                else:
                    why = await self.policy.refusal_async(url)
                if why is None:
                    await cdp.send("Fetch.continueRequest", {"requestId": event["requestId"]})
                    return
                if event.get("resourceType") == "Document" and event.get("frameId") == main_frame:
                    tab.refused = f"{url} is not allowed: {why}"
                failure = {"requestId": event["requestId"], "errorReason": "BlockedByClient"}
                await cdp.send("Fetch.failRequest", failure)
            except Exception:
                pass

        frame_tree = await cdp.send("Page.getFrameTree")
        main_frame = frame_tree["frameTree"]["frame"]["id"]
        cdp.on("Fetch.requestPaused", paused)
        answers = {"urlPattern": "*", "resourceType": "Document", "requestStage": "Response"}
        requests = {"urlPattern": "*", "requestStage": "Request"}
        patterns = [requests, answers] if self.policy.enforced else [answers]
        await cdp.send("Fetch.enable", {"patterns": patterns})


def _redirect_elsewhere(url: str, event: dict[str, Any]) -> str | None:
    """Why a paused answer may not be followed: it redirects to a URL that is not http(s)."""
    if event["responseStatusCode"] not in (301, 302, 303, 307, 308):
        return None
    for header in event.get("responseHeaders", []):
        if header["name"].lower() == "location":
            target = redirect_elsewhere(url, header["value"])
            if target is not None:
                return f"it redirects to {target[:200]}, not an http(s) URL"
    return None


class Sessions:
    """Every session of this process, with the process-wide tab cap."""

    def __init__(self, runtime: BrowserRuntime) -> None:
        self.runtime = runtime
        self.sessions: dict[str, Session] = {}
        self.open_tabs = 0
        # in every id this process makes (ses_<mark>_<key>): an id of another process shows
        self.mark = uuid.uuid4().hex[:8]

    async def create(
        self,
        *,
        policy: UrlPolicy | None = None,
        seed: Any = None,
        session_id: str | None = None,
        record: bool = False,
    ) -> Session:
        """`record`: every context of the session recorded into a HAR file (a folder of its
        own, removed when the session closes unless its taker keeps it)."""
        sid = session_id or f"ses_{self.mark}_{uuid.uuid4().hex}"  # 128 random bits: the key
        if sid in self.sessions:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER, f"session {sid} exists already", "Choose another id."
            )
        recording = (
            HarRecording(Path(tempfile.mkdtemp(prefix="taskplate-session-"))) if record else None
        )
        session = Session(self, sid, policy or UrlPolicy(), seed, recording)
        try:
            await session.open()
        except BaseException:
            await session.close()
            raise
        self.sessions[sid] = session
        return session

    def get(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise self.not_here(session_id)
        return session

    def not_here(self, session_id: str) -> TaskplateError:
        """SESSION_NOT_FOUND naming why: the session is held by another process (its id says
        which made it: another server behind a load balancer, or this one before a restart), or it
        was closed here, or no such id was ever made."""
        parts = session_id.split("_", 2)
        mark = parts[1] if len(parts) == 3 and parts[0] == "ses" and parts[2] else ""
        if len(mark) != len(self.mark):
            return TaskplateError(
                ErrorCode.SESSION_NOT_FOUND,
                f"no session {session_id}",
                "List sessions with list_sessions or create one with create_session.",
                {"sessionId": session_id, "cause": "unknown"},
            )
        if mark == self.mark:
            return TaskplateError(
                ErrorCode.SESSION_NOT_FOUND,
                f"no session {session_id} on this server: it was closed",
                "Create another one with create_session.",
                {"sessionId": session_id, "cause": "closed"},
            )
        return TaskplateError(
            ErrorCode.SESSION_NOT_FOUND,
            f"no session {session_id} on this server: it is held by another server (a browser "
            "session lives in the memory of the server that opened it: another server behind a "
            "load balancer, or this one before it restarted)",
            "Send every call naming this session to the server that opened it (a load balancer "
            "must be sticky for browser sessions), or create a session here with create_session. "
            "Runs (run_task_template, get_task_run, cancel_task_run) are answered by any server.",
            {"sessionId": session_id, "cause": "another_server"},
        )

    async def close(self, session_id: str, keep_recording: bool = False) -> None:
        session = self.get(session_id)
        del self.sessions[session_id]
        await session.close(keep_recording)

    async def close_all(self) -> None:
        for sid in list(self.sessions):
            await self.close(sid)

    def has_room(self, session: Session) -> bool:
        return len(session.tabs) < MAX_TABS_PER_SESSION and self.open_tabs < MAX_TABS_PER_PROCESS

    def reserve_tab(self, session: Session) -> None:
        if len(session.tabs) >= MAX_TABS_PER_SESSION:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"session {session.id} has {MAX_TABS_PER_SESSION} tabs open, the most a session may have",
                "Close a tab (close_tab) before opening another.",
            )
        if self.open_tabs >= MAX_TABS_PER_PROCESS:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"{MAX_TABS_PER_PROCESS} tabs are open in this process, the most it may have",
                "Close tabs or sessions, or wait for running work to finish.",
            )
        self.open_tabs += 1

    def release_tab(self) -> None:
        self.open_tabs = max(0, self.open_tabs - 1)

    def forget_tabs(self, session: Session) -> None:
        self.open_tabs = max(0, self.open_tabs - len(session.tabs))
