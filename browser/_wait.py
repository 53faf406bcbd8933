"""Smart waiting, one mechanism for every caller: a watcher installed in each document before its
own scripts run, and a wait bounded by `timeout_ms`. Watches the page; never changes what it shows.

The watcher (`_watcher.WATCHER`, an init script of every session's context) records the last change of
the document (DOM mutations, responses, short timers firing) and the work still scheduled: short
`setTimeout`s and animation frames, chains of them followed a few links deep. A page is stable
when it has loaded, nothing is scheduled or in flight, and, if it changed after loading, it has
been quiet for `quiet_ms` since (else 100 ms after loading, or six of its own frames if it is
still drawing them, and until its intervals due within those 100 ms have run once, unless it
has no script, frame or load handler: then nothing it cannot see may change it, and it is
stable once loaded). Quiet time counts from the page's real last change, so a page that was
already quiet when the wait starts is stable at once.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import anyio

from ._errors import crashed, is_crash
from ._tab import Tab
from ._watcher import READ, SETTLE_FRAMES

POLL_S = 0.025
# A page unchanged since it loaded is watched this long after loading (or quiet_ms if shorter):
# what no watcher sees (intervals, message-channel schedulers) shows itself within it.
SETTLE_MS = 100
# ... and while a frame beyond the chain followed is pending, until the page has run as many
# frames as that is at 60 a second (_just_loaded), never longer than this.
FRAMELESS_MS = 1000

# Without a watcher: the old way, an observer from now on and a full quiet window.
_OBSERVE_FROM_NOW = """() => {
  if (!window.__taskplateLate) {
    window.__taskplateLate = { last: performance.now() };
    const note = () => { window.__taskplateLate.last = performance.now(); };
    new MutationObserver(note).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  }
  return performance.now() - window.__taskplateLate.last;
}"""


@dataclass
class Settled:
    """How a wait ended: stable or not, after how long, and what was still busy if not."""

    stable: bool
    waited_ms: int
    busy: list[str] = field(default_factory=list)
    # The last look saw an ordinary document (not the browser's error page): no need to ask again.
    ordinary_page: bool = False


def _still_to_wait_s(tab: Tab, state: dict[str, Any] | None, quiet_ms: int) -> float:
    """How long nothing but time keeps the page from being stable: the next look is then due.

    A page waiting only out its quiet window (or its 100 ms after loading) is looked at again
    when that is over, not every POLL_S: each look is a round trip to the renderer, and a batch
    pays them for every page. Anything pending (requests, timers, frames) is polled."""
    if state is None or tab.inflight or not state["loaded"] or state["timers"] or state["frames"]:
        return POLL_S
    if state["changedAfterLoad"]:
        left_ms = quiet_ms - state["quietMs"]
    elif _waiting_for_an_interval(state, min(quiet_ms, SETTLE_MS)):
        return POLL_S
    else:
        left_ms = min(quiet_ms, SETTLE_MS) - state["sinceLoadMs"]
    return max(POLL_S, float(left_ms) / 1000)


def _busy(tab: Tab, state: dict[str, Any] | None, late_quiet_ms: float, quiet_ms: int) -> list[str]:
    """What keeps the page from being stable now; empty when it is stable."""
    busy = []
    if tab.inflight:
        busy.append(f"{tab.inflight} request(s) in flight")
    if state is None:
        if late_quiet_ms < quiet_ms:
            busy.append("the page is changing")
        network_quiet_ms = (time.monotonic() - tab.last_network) * 1000
        if not tab.inflight and network_quiet_ms < quiet_ms:
            busy.append("the network was busy just now")
        return busy
    if not state["loaded"]:
        busy.append("the page is still loading")
    if state["timers"]:
        busy.append(f"{state['timers']} short timer(s) pending")
    if state["frames"]:
        busy.append(f"{state['frames']} animation frame(s) pending")
    if state["changedAfterLoad"] and state["quietMs"] < quiet_ms:
        busy.append("the page is changing")
    elif state["loaded"] and not state.get("scriptless"):  # else nothing unseen can change it
        window_ms = min(quiet_ms, SETTLE_MS)
        if _just_loaded(state, window_ms):
            busy.append("the page has just loaded")
        elif _waiting_for_an_interval(state, window_ms):
            busy.append("an interval of the page has not run since it loaded")
    return busy


def _just_loaded(state: dict[str, Any], window_ms: int) -> bool:
    """Whether the page is still in its window after loading: `window_ms`, and while a frame
    it scheduled beyond the chain the watcher follows is pending, until it has run as many of
    its own frames since loading as `window_ms` is at 60 a second. A busy machine runs a page's
    frames late: a clock started a few frames after loading would start after the window's
    time. A page whose frames never run (hidden) is held at most FRAMELESS_MS."""
    since_ms = state["sinceLoadMs"]
    if since_ms < window_ms:
        return True
    owed = min(SETTLE_FRAMES, math.ceil(window_ms * 60 / 1000))
    return (
        bool(state.get("beyond"))
        and state.get("framesAfterLoad", owed) < owed
        and since_ms < FRAMELESS_MS
    )


def _waiting_for_an_interval(state: dict[str, Any], window_ms: int) -> bool:
    """Whether an interval due within the window after loading has not yet run since: a busy
    machine runs it late, and the window, over by then, would not have seen what it changes."""
    unran_ms = state.get("unranMs")
    return unran_ms is not None and unran_ms <= window_ms


async def _look(tab: Tab) -> tuple[dict[str, Any] | None, float]:
    """The watcher's state, or None and the quiet time seen by a late observer."""
    try:
        state = await tab.page.evaluate(READ)
        if state is not None:
            return state, 0.0
        return None, float(await tab.page.evaluate(_OBSERVE_FROM_NOW))
    except Exception as exc:
        if is_crash(exc) or tab.crashed:
            raise crashed(str(exc).splitlines()[0]) from None
        # The document is being replaced: busy, and the next look sees the new one.
        return {
            "loaded": False,
            "changedAfterLoad": True,
            "quietMs": 0,
            "timers": 0,
            "frames": 0,
        }, 0


async def wait_for_stable(tab: Tab, timeout_ms: int = 10_000, quiet_ms: int = 500) -> Settled:
    """Wait until the page is stable, never longer than timeout_ms (a hung page included)."""
    start = time.monotonic()
    busy = ["the page did not answer"]
    with anyio.move_on_after(timeout_ms / 1000):
        while True:
            state, late_quiet_ms = await _look(tab)
            busy = _busy(tab, state, late_quiet_ms, quiet_ms)
            if not busy:
                ordinary = state is not None and state.get("errorPage") is False
                return Settled(True, int((time.monotonic() - start) * 1000), [], ordinary)
            await anyio.sleep(_still_to_wait_s(tab, state, quiet_ms))
    return Settled(False, int((time.monotonic() - start) * 1000), busy)
