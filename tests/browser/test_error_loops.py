"""A picture whose error handler swaps in a fallback that fails too fails again and again for as
long as the page is open (blocked, as reads block pictures, or missing); every session cuts the
loop short (browser/_watcher.py, ERROR_LOOPS): the page loads, is read without a warning, and sends
nothing more."""

from __future__ import annotations

import anyio
import pytest

from taskplate.browser._watcher import LOOP_FAILURES
from taskplate.stdlib import ActionContext, run_action
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("block", [True, False])
async def test_a_picture_whose_fallback_fails_too_stops_failing(
    ctx: ActionContext, site: FixtureServer, block: bool
) -> None:
    url = site.url("/fallback-loop.html")
    opened = await run_action("navigate", ctx, {"url": url, "blockResources": block})
    assert opened["status"] == 200 and "warnings" not in opened, opened  # `load` fired
    assert ctx.session is not None and ctx.session.main_tab is not None
    page = ctx.session.tab(ctx.session.main_tab).page
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url))
    await anyio.sleep(0.5)
    handled = await page.evaluate("() => [window.failures, window.missed, document.readyState]")
    # Each handler ran for the first LOOP_FAILURES failures only, and nothing is sent any more.
    assert handled == [LOOP_FAILURES, LOOP_FAILURES, "complete"]
    assert sent == []
    read = await run_action("get_page_content", ctx, {})
    assert "all there is to read" in read["content"] and "warnings" not in read, read
