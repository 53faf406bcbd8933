"""Waiting until what a reader measures on a page (a list's number of matches) has stopped
changing: the smart wait's watcher and verdict, applied to one measure. Reads; changes nothing.

A caller's page script returns its read with the watcher's state (`STATE`, the smart wait's
`READ`) beside it. The measure is steady at once when the page is stable by the smart wait's
rules (nothing scheduled or in flight, quiet for the window, or unchanged since it loaded);
else once it has not changed for the quiet window, counted from the page's last change seen
when it took its present value (the watcher's, so a list already quiet needs no second look).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from ._tab import Tab
from ._wait import POLL_S, _busy
from ._watcher import READ

# The watcher's state, for a caller's page script to return beside what it read:
# `{..., watch: (STATE)()}` (null where no watcher runs).
STATE = READ


@dataclass
class Steady:
    """The last read, whether its measure had stopped changing, and how long it was waited for."""

    read: Any
    steady: bool
    waited_ms: int


def _quiet_s(state: dict[str, Any] | None) -> float:
    return float(state["quietMs"]) / 1000 if state is not None else 0.0


async def wait_for_steady(
    tab: Tab,
    first: Any,
    look: Callable[[], Awaitable[Any]],
    measure: Callable[[Any], Any],
    *,
    timeout_s: float,
    quiet_ms: int,
) -> Steady:
    """Read again (`look`) until `measure` of the read has not changed for `quiet_ms`, or the
    page is stable, never longer than `timeout_s`; each read carries the watcher's state as
    `read["watch"]`. A read of None (the root is gone) counts as a change."""
    start = time.monotonic()
    read, quiet = first, quiet_ms / 1000
    value = measure(read) if read is not None else None
    since = start - _quiet_s(read.get("watch") if read is not None else None)
    with anyio.move_on_after(timeout_s):
        while True:
            now = time.monotonic()
            state = read.get("watch") if read is not None else None
            page_stable = state is not None and not _busy(tab, state, 0.0, quiet_ms)
            if read is not None and (page_stable or now - since >= quiet):
                return Steady(read, True, int((now - start) * 1000))
            # A change shows at the next look; past the window, that look says it is over.
            await anyio.sleep(max(POLL_S, min(quiet / 5, since + quiet - now)))
            read = await look()
            fresh = measure(read) if read is not None else None
            if read is None or fresh != value:
                value = fresh
                since = time.monotonic() - _quiet_s(read.get("watch") if read else None)
    return Steady(read, False, int((time.monotonic() - start) * 1000))
