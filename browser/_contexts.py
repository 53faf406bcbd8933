"""A session's browser contexts: the current one, opened from the session's seed and again
after a crash, retired after many loop pages for a fresh one that carries its storage state, and
the retired ones closed once their last tab is. The session's tabs are `Session`'s (_session.py).
"""

from __future__ import annotations

import contextlib
import shutil
import time
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from playwright.async_api import BrowserContext, Page

from ._cleanup import cleanup
from ._har import HarRecording
from ._tab import Tab
from ._watcher import ERROR_LOOPS, WATCHER
from .traffic import Network, UrlPolicy

if TYPE_CHECKING:
    from ._runtime import BrowserRuntime

# A session's context serves this many pages of a loop, then is retired: the next pages open in
# a fresh context seeded with its storage state (cookies, localStorage), and it closes when the
# last page still running in it is done, as Crawlee's retireBrowserAfterPageCount. What a
# context keeps from page to page (its in-memory HTTP and code caches, closed targets) cannot
# add up over a long batch.
CONTEXT_RETIRES_AFTER = 500
RETIRE_TIMEOUT_S = 15  # bounds handing the state on and closing the retired context


class SessionHolder(Protocol):
    """What a session asks of the registry that holds it (`_sessions.Sessions`): its browsers,
    and room for a tab under the process's and the session's caps."""

    runtime: BrowserRuntime

    def has_room(self, session: SessionContexts) -> bool: ...
    def reserve_tab(self, session: SessionContexts) -> None: ...
    def release_tab(self) -> None: ...
    def forget_tabs(self, session: SessionContexts) -> None: ...


class SessionContexts:
    """A session's state and the life of its contexts (opened, retired, drained, reopened after
    a crash, closed); `Session` adds its tabs and the popups its pages open."""

    def __init__(
        self,
        registry: SessionHolder,
        session_id: str,
        policy: UrlPolicy,
        seed: Any,
        recording: HarRecording | None = None,
        network: Network | None = None,
    ) -> None:
        self.registry = registry
        # Every context of the session recorded into a HAR file of this recording's folder
        # (create_session's `record`): save_template makes a first test case of them.
        self.recording = recording
        self.id = session_id
        self.policy = policy
        self.network = network or Network()  # proxy, identity and host pace of its contexts
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
            **self.network.context_options(),
        )
        await context.add_init_script(WATCHER)  # before any page of the session exists
        await context.add_init_script(ERROR_LOOPS)
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
                    with cleanup(what="closing a browser context"):
                        await one.close()
        finally:
            if self.recording is not None and not keep_recording:
                shutil.rmtree(self.recording.folder, ignore_errors=True)

    async def _adopt_popup(self, page: Page) -> None:
        """A page opened by a page of the context: `Session` judges whether it is a tab."""
        raise NotImplementedError
