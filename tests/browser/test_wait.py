"""The smart wait's window after loading: watched on a page with scripts, skipped on a page
without any (nothing the watcher cannot see may change it)."""

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
