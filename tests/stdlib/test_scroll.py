"""`scroll` until a feed stops growing, and on a page that cannot scroll, in real Chromium."""

from __future__ import annotations

import pytest

from taskplate.stdlib._context import ActionContext
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

POSTS = {"posts": {"selector": ".post", "all": True}}


async def test_scroll_until_stable_stops_when_the_feed_ends(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/feed.html?loads=4&ms=10"))
    result = await act("scroll", ctx, to="bottom", until="stable", times=20, quietMs=1000)
    # four scrolls that each load ten posts, and one that brings nothing new
    assert (result["scrolls"], result["reason"]) == (5, "stable")
    assert "warnings" not in result and result["scrollY"] > 0
    posts = (await act("extract", ctx, fields=POSTS))["values"]["posts"]
    assert len(posts) == 50 and posts[-1] == "Post 50"


async def test_scroll_stops_at_times_while_the_feed_still_grows(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/feed.html?loads=10&ms=10"))
    result = await act("scroll", ctx, to="bottom", until="stable", times=2)
    assert (result["scrolls"], result["reason"]) == (2, "times")


async def test_a_page_that_cannot_scroll_stops_at_once_with_a_warning(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/feed.html?locked=1"))
    result = await act("scroll", ctx, to="bottom", times=20)
    assert (result["scrolls"], result["reason"], result["scrollY"]) == (1, "cannot_scroll", 0)
    assert "cannot scroll" in result["warnings"][0]
    short = await act("scroll", ctx, to="bottom", until="stable", times=5)
    assert short["reason"] == "cannot_scroll"
