"""The tabs of a `forEach`'s items: a tab per item opened by its first browser step, handed on
clean to the next item, retired after TAB_RETIRES_AFTER items. Knows no step or action.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

import anyio

from taskplate.browser import Session, Tab

from ._run_resources import RunResources

# A recycled tab serves this many items, then is closed and replaced: what a renderer keeps
# from page to page (history entries, caches, leaks of the pages themselves) cannot add up.
TAB_RETIRES_AFTER = 100
# ... and its renderer collects its garbage after every this many items: left to itself, it let
# the garbage of every page it showed pile up (PSS of 5 tabs: 400 MB after 100 pages, 800 MB
# after 400 without retirement; flat at about 200 MB with a collection every few items).
COLLECT_EVERY = 5


@dataclass
class ItemTab:
    """A `tab: new` item's tab, opened when its first browser step needs it: an item read over
    plain HTTP (`fetch`) opens no tab, and a run that never needs one never starts Chromium."""

    spare: list[str]
    id: str | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)


_ITEM_TAB: ContextVar[ItemTab | None] = ContextVar("taskplate_item_tab", default=None)


def item_tab() -> ItemTab | None:
    """The current item's tab (each item task sets its own), None outside such an item."""
    return _ITEM_TAB.get()


def enter_item_tab(spare: list[str]) -> ItemTab:
    """The current item task's tab, not opened yet; `spare` holds finished items' tabs."""
    lazy = ItemTab(spare)
    _ITEM_TAB.set(lazy)
    return lazy


@dataclass
class ItemTabs:
    resources: RunResources

    async def open(self, lazy: ItemTab) -> str:
        """The item's tab, opened by the first of its steps that asks (steps may run at once)."""
        async with lazy.lock:
            if lazy.id is None:
                lazy.id = await self._clean_tab(lazy.spare)
        return lazy.id

    async def _clean_tab(self, spare_tabs: list[str]) -> str:
        """A clean tab for an item: a finished item's tab reset to about:blank, or a new one.

        `tab: new` promises a clean page, not a new process: the popups it opened are closed,
        what the tab keeps across navigations (sessionStorage, window.name) is cleared, and its
        dialog and status records too; its page is marked stale, so the next
        item's navigation replaces it, and any action that would read it first blanks it."""
        session = await self.resources.session()
        await session.count_page()  # may retire the context: new tabs open in a fresh one
        while spare_tabs:
            tab_id = spare_tabs.pop()
            tab = session.tabs.get(tab_id)
            if tab is None or tab.crashed:
                continue
            if session.in_current_context(tab):
                return tab_id
            await session.close_tab(tab_id)  # of a retired context: let it drain
        return (await session.new_tab()).id

    async def recycle(self, lazy: ItemTab) -> None:
        """A finished item's tab made ready for the next item (or closed, if it is worn)."""
        session, tab = await self._without_popups(lazy)
        if session is None or tab is None:
            return
        tab.items_served += 1
        if tab.crashed or tab.items_served >= TAB_RETIRES_AFTER:
            await session.close_tab(tab.id)  # the next item opens a fresh one
            return
        # One wait for both: the garbage collection (every few items) goes with the clean-up
        # instead of after it (both best effort, bounded by their own timeouts).
        async with anyio.create_task_group() as tg:
            tg.start_soon(tab.forget_page_state)
            if tab.items_served % COLLECT_EVERY == 0:
                tg.start_soon(tab.collect_garbage)
        tab.dialogs.clear()
        tab.refused, tab.status, tab.net_error, tab.stale = None, None, None, True
        lazy.spare.append(tab.id)

    async def drop(self, lazy: ItemTab) -> None:
        """An aborted item's tab closed, with the popups it opened, not handed on: its page may
        be loading still, and blanking it first waited for that load (a forced cancel took 16 s)."""
        session, tab = await self._without_popups(lazy)
        if session is not None and tab is not None:
            await session.close_tab(tab.id)

    async def _without_popups(self, lazy: ItemTab) -> tuple[Session | None, Tab | None]:
        """The item's session and tab, once the popups its page opened are closed."""
        session = self.resources.opened
        tab = session.tabs.get(lazy.id) if session is not None and lazy.id else None
        if session is None or tab is None:
            return None, None
        for other in [t for t in session.tabs.values() if t.opened_by == tab.id]:
            await session.close_tab(other.id)
        return session, tab

    async def close_spares(self, spare_tabs: list[str]) -> None:
        """The loop's spare tabs closed when it ends, even when it is canceled."""
        session = self.resources.opened
        if not spare_tabs or session is None:
            return
        with anyio.CancelScope(shield=True):
            for spare in spare_tabs:
                if spare in session.tabs:
                    await session.close_tab(spare)
