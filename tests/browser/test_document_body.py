"""A document's answer in the browser is held to maxBodyBytes as plain HTTP's is (issue 51): a
markup bomb of each encoding, and a page without end, is refused with a code before the page
sees it; pages within the bound read as before, a compressed one in its own charset too."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib import ActionContext
from tests.conftest import act
from tests.fixtures.hostile_site import ENCODINGS, HostileSite, markup_bomb, serve_hostile_site

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileSite]:
    for name in ENCODINGS:
        markup_bomb(name)  # made once, before any clock runs
    with serve_hostile_site() as site:
        yield site


@pytest.mark.parametrize("path", [f"/markup/{name}" for name in ENCODINGS] + ["/endless"])
async def test_a_document_past_the_bound_is_refused_before_the_page_sees_it(
    ctx: ActionContext, hostile: HostileSite, path: str
) -> None:
    url = hostile.url(path)
    with anyio.fail_after(30), pytest.raises(TaskplateError) as refused:
        await act("navigate", ctx, url=url, maxBodyBytes=2_000_000)
    error = refused.value
    assert error.code is ErrorCode.NAVIGATION_FAILED, error.message
    assert error.details == {"url": url, "maxBodyBytes": 2_000_000}
    assert "size limit (2000000 bytes)" in error.message
    page = (await ctx.tab()).page
    assert page.url in ("about:blank", "chrome-error://chromewebdata/")  # none of it shown
    # the tab reads its next page as before
    landed = await act("navigate", ctx, url=hostile.url("/calm"))
    assert landed["status"] == 200 and landed["title"] == "Calm"


async def test_read_page_in_the_browser_refuses_a_bomb_as_its_http_engine_does(
    ctx: ActionContext, hostile: HostileSite
) -> None:
    for engine in ("browser", "http"):
        with anyio.fail_after(30), pytest.raises(TaskplateError) as refused:
            await act("read_page", ctx, url=hostile.url("/markup/zstd"), engine=engine)
        assert refused.value.code is ErrorCode.NAVIGATION_FAILED
        assert refused.value.details == {
            "url": hostile.url("/markup/zstd"),
            "maxBodyBytes": 10_000_000,
        }


async def test_a_compressed_page_within_the_bound_reads_whole_in_its_own_charset(
    ctx: ActionContext, hostile: HostileSite
) -> None:
    landed = await act("navigate", ctx, url=hostile.url("/calm-gzip"), maxBodyBytes=100_000)
    assert landed["status"] == 200 and landed["title"] == "Café", landed
    read = await act("read_page", ctx, url=hostile.url("/calm-gzip"), engine="browser")
    assert read["title"] == "Café" and "plain words that reads the same" in read["content"]
    with pytest.raises(TaskplateError) as refused:  # a byte over the bound is over
        await act("navigate", ctx, url=hostile.url("/calm"), maxBodyBytes=100)
    assert refused.value.details == {"url": hostile.url("/calm"), "maxBodyBytes": 100}
