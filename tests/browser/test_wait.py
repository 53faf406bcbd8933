"""The smart wait's window after loading: watched on a page with scripts, skipped on a page
without any (nothing the watcher cannot see may change it), and held open until the page's short
intervals have run once."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from taskplate.browser._wait import _busy
from taskplate.browser._watcher import READ
from taskplate.stdlib import ActionContext, run_action
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio
JUST_LOADED = {"loaded": True, "changedAfterLoad": False, "sinceLoadMs": 10, "quietMs": 10}


def test_a_page_just_loaded_is_watched_unless_it_has_no_script() -> None:
    tab: Any = SimpleNamespace(inflight=0)
    state = {**JUST_LOADED, "timers": 0, "frames": 0}
    assert _busy(tab, {**state, "scriptless": False}, 0, 200) == ["the page has just loaded"]
    assert _busy(tab, {**state, "scriptless": True}, 0, 200) == []


def test_a_page_just_loaded_is_watched_until_its_short_intervals_have_run() -> None:
    # A machine busy enough runs a 100 ms interval after the 100 ms window: it was seen stable
    # before its first change (CI, test_smart_wait_returns_at_its_timeout_on_a_page_that_never_settles).
    tab: Any = SimpleNamespace(inflight=0)
    state = {**JUST_LOADED, "sinceLoadMs": 130, "timers": 0, "frames": 0, "scriptless": False}
    waiting = ["an interval of the page has not run since it loaded"]
    assert _busy(tab, {**state, "unranMs": 100}, 0, 300) == waiting
    assert _busy(tab, {**state, "unranMs": 100}, 0, 80) == []  # longer than the window asked
    assert _busy(tab, {**state, "unranMs": 1000}, 0, 300) == []  # a slow poll is not waited for
    assert _busy(tab, {**state, "unranMs": None}, 0, 300) == []


def test_a_page_still_drawing_frames_is_watched_until_it_has_run_six() -> None:
    # late-interval.html starts its clock six frames after loading, two beyond the chain the
    # watcher follows; a busy machine ran them late, and the 100 ms after loading were over
    # before the clock had started (CI, 3.13, stable at 117 ms).
    tab: Any = SimpleNamespace(inflight=0)
    state = {**JUST_LOADED, "sinceLoadMs": 130, "timers": 0, "frames": 0, "scriptless": False}
    drawing = {**state, "beyond": 1}
    assert _busy(tab, {**drawing, "framesAfterLoad": 4}, 0, 300) == ["the page has just loaded"]
    assert _busy(tab, {**drawing, "framesAfterLoad": 6}, 0, 300) == []
    assert _busy(tab, {**drawing, "framesAfterLoad": 2}, 0, 30) == []  # 30 ms: two frames owed
    # No frame pending beyond the chain (a page done with its frames): 100 ms are enough.
    assert _busy(tab, {**state, "beyond": 0, "framesAfterLoad": 2}, 0, 300) == []
    # A page whose frames never run (hidden) is not held for them for ever.
    assert _busy(tab, {**drawing, "framesAfterLoad": 0, "sinceLoadMs": 1000}, 0, 300) == []


async def test_a_clock_started_just_after_loading_is_seen_changing(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await run_action("navigate", ctx, {"url": site.url("/late-interval.html")})
    stable = await run_action("wait_for_stable", ctx, {"timeoutMs": 1000, "quietMs": 300})
    assert stable["stable"] is False and "the page is changing" in stable["warnings"][0], stable


@pytest.mark.parametrize(
    ("path", "scriptless"),
    [("/article.html", True), ("/script-article.html", False), ("/iframe.html", False)],
)
async def test_the_watcher_tells_a_page_without_script(
    ctx: ActionContext, site: FixtureServer, path: str, scriptless: bool
) -> None:
    await run_action("navigate", ctx, {"url": site.url(path)})
    assert ctx.session is not None
    assert ctx.session.main_tab is not None
    state = await ctx.session.tab(ctx.session.main_tab).page.evaluate(READ)
    assert state["scriptless"] is scriptless, state
