"""A browser session: an isolated browser context with its tabs, popups adopted as tabs, its
context retired after many pages, and the URL policy on every request. Tabs are _tab.py's;
the contexts' life (opened, retired, reopened after a crash) is _contexts.py's.
"""

from __future__ import annotations

import contextlib

import anyio
from playwright.async_api import Page

from taskplate.contract import ErrorCode, TaskplateError

from ._cleanup import cleanup
from ._contexts import SessionContexts
from ._errors import crashed, is_crash
from ._guard import guard
from ._tab import Tab

GONE_KEPT = 64  # closed tabs remembered, to tell a lost tab from an unknown one


class Session(SessionContexts):
    """An isolated context (cookies, storage) with up to 20 tabs; closes every page it opened."""

    async def lost(self, tab_id: str | None, error: TaskplateError) -> TaskplateError:
        """A crash seen by an action, told apart: BROWSER_DISCONNECTED when the tab's remote
        browser went away (its endpoint is down), else the error itself."""
        tab_id = tab_id or self.main_tab or self._last_main
        tab = self.tabs.get(tab_id) or self._gone.get(tab_id) if tab_id else None
        return error if tab is None else await tab.lost(error)

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
                    with cleanup(what="closing a tab that failed to open"):
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
        await guard(tab, self.policy)
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
        try:
            tab = await self._register(page)
        except Exception:
            if not page.is_closed():
                raise
            # closed while it was adopted (its window gone, its session closing): nothing to
            # adopt, and no error for a listener to raise into the connection's next call
            self._closed(next((t.id for t in self.tabs.values() if t.page is page), ""))
            return
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
        with cleanup(what=f"closing tab {tab_id}"):
            await tab.page.close()
        self._closed(tab_id)
        if self._retired:
            await self.close_drained()
