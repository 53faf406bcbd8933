"""`extract`'s `all: true` lists read once they have stopped growing (issue 53 item 1), and
records' fields that match in none of them reported (item 2), in real headless Chromium."""

from __future__ import annotations

import time

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib._context import ActionContext
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

CARD = {"title": ".t", "price": {"selector": ".p", "type": "number"}}
CARDS = {"selector": ".card", "all": True, "fields": CARD}


@pytest.mark.parametrize(
    "query",
    ["ms=40", "ms=10", "ms=150&n=8", "ms=40&by=interval", "ms=300&n=4&by=interval"],
)
async def test_a_growing_list_is_read_whole(
    ctx: ActionContext, site: FixtureServer, query: str
) -> None:
    await act("navigate", ctx, url=site.url(f"/shop/growing.html?{query}"))
    n = 24 if "n=" not in query else int(query.split("n=")[1].split("&")[0])
    result = await act("extract", ctx, fields={"products": CARDS})
    products = result["values"]["products"]
    assert len(products) == n, f"{len(products)} of {n} cards"
    assert products[-1] == {"title": f"Item {n}", "price": float(n)}
    assert result["missing"] == [] and "warnings" not in result


async def test_a_growing_list_inside_records_is_read_whole(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/growing.html?ms=40"))
    page = {"selector": "body", "fields": {"cards": CARDS, "head": "h1"}}
    result = await act("extract", ctx, fields={"page": page})
    assert len(result["values"]["page"]["cards"]) == 24


async def test_a_list_that_never_stops_is_read_at_timeout_with_a_warning(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/growing.html?n=0&ms=40"))
    start = time.monotonic()
    result = await act("extract", ctx, fields={"products": CARDS}, timeoutMs=1500)
    assert time.monotonic() - start < 1.5 + 2.0  # bounded by timeoutMs (and a look's time)
    count = len(result["values"]["products"])
    assert count >= 2
    (warning,) = result["warnings"]
    assert warning.startswith("still changing after ") and "products (" in warning
    assert "may be partial" in warning


async def test_a_static_list_is_read_at_once(ctx: ActionContext, site: FixtureServer) -> None:
    await act("navigate", ctx, url=site.url("/shop/listing.html"))
    await act("wait_for_stable", ctx)
    start = time.monotonic()
    cards = {**CARDS, "fields": {"t": ".t"}}
    result = await act("extract", ctx, fields={"products": cards}, quietMs=5000)
    assert len(result["values"]["products"]) == 3
    assert time.monotonic() - start < 2.5  # the page is stable: no 5 s quiet window waited


async def test_optional_reads_a_growing_list_as_it_is(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/growing.html?ms=100"))
    result = await act("extract", ctx, fields={"products": CARDS}, optional=True)
    assert len(result["values"]["products"]) < 24


async def test_a_field_no_record_has_is_missing_by_path_with_a_warning(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/growing.html?ms=10"))
    cards = {**CARDS, "fields": {**CARD, "price": {"selector": ".prcie", "type": "number"}}}
    result = await act("extract", ctx, fields={"products": cards})
    assert len(result["values"]["products"]) == 24
    assert result["missing"] == ["products[].price"]
    assert result["warnings"] == [
        'products[].price (".prcie") matched in none of the 24 records: check its selector, '
        "or name it in required to fail the step"
    ]
    with pytest.raises(TaskplateError) as caught:
        await act("extract", ctx, fields={"products": cards}, required=["products[].price"])
    assert caught.value.code is ErrorCode.ELEMENT_NOT_FOUND
    assert caught.value.message == (
        'required field not found: products[].price (".prcie") in none of the 24 records'
    )
    # the path is checked against the fields before anything runs
    with pytest.raises(TaskplateError) as caught:
        await act("extract", ctx, fields={"products": cards}, required=["products[].prize"])
    assert caught.value.code is ErrorCode.INVALID_PARAMETER


async def test_a_field_no_record_has_is_found_at_every_depth(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/growing.html?ms=10&n=3"))
    tags = {"selector": ".tags", "all": True, "fields": {"first": "li", "odd": "em"}}
    cards = {**CARDS, "fields": {"title": ".t", "tags": tags, "note": ".note"}}
    page = {"selector": "body", "fields": {"cards": cards}}
    result = await act("extract", ctx, fields={"page": page})
    assert result["missing"] == ["page.cards[].tags[].odd", "page.cards[].note"]
    assert len(result["warnings"]) == 2
    with pytest.raises(TaskplateError) as caught:
        await act("extract", ctx, fields={"page": page}, required=["page.cards[].tags[].odd"])
    assert caught.value.code is ErrorCode.ELEMENT_NOT_FOUND


async def test_a_field_some_records_lack_is_not_missing(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/listing.html"))
    result = await act("extract", ctx, fields={"items": CARDS})  # one card has no price
    assert [i["price"] for i in result["values"]["items"]] == [1299.0, None, 2.5]
    assert result["missing"] == [] and "warnings" not in result
