"""A recycled tab's page (the item before's) may move itself on by its own script as the next
item's navigation begins, and Chromium cuts the next navigation short (ERR_ABORTED): `navigate`
makes it again from a blank tab, so the next page opens whatever the page before does; one
that ends on the page before without an answer is not read as this one either
(tests/stdlib/test_navigate_arrival.py)."""

from __future__ import annotations

import anyio
import pytest

from taskplate.stdlib import ActionContext
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

# The page before moves itself on 50 ms after it is asked to; the next page answers in 300 ms.
MOVE_ON = "setTimeout(() => location.assign(location.pathname + '?moved'), 50)"


async def test_the_next_item_opens_its_page_while_the_page_before_moves_itself_on(
    ctx: ActionContext, site: FixtureServer
) -> None:
    following = site.url("/slow?ms=300&n=next")
    for _ in range(3):
        await act("navigate", ctx, url=site.url("/article.html"), waitUntil="domcontentloaded")
        tab = await ctx.tab()
        await tab.page.evaluate(MOVE_ON)
        tab.stale = True  # as a finished item's tab is handed on (ItemTabs.recycle)
        with anyio.fail_after(15):
            landed = await act("navigate", ctx, url=following, timeoutMs=10_000)
            read = await act("get_page_content", ctx)
        assert landed["url"] == following and landed["status"] == 200
        assert read["title"] == "Slow page next" and "Finally here" in read["content"]
        assert "sliding window" not in read["content"].lower()
