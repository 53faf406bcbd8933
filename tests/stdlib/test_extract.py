"""`extract`'s records (a record per match, nulls where a match has none) and its wait for
fields written late, against the fixture shop in real headless Chromium."""

from __future__ import annotations

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib._context import ActionContext
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

CARDS = {
    "selector": ".card",
    "all": True,
    "fields": {
        "title": ".t",
        "price": {"selector": ".p", "type": "number"},
        "link": {"selector": ".t", "attr": "href", "type": "url"},
        "tags": {"selector": ".tags li", "all": True},
    },
}


async def test_records_read_each_field_inside_its_own_card(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/listing.html"))
    result = await act(
        "extract", ctx, fields={"items": CARDS, "next": {"selector": ".next", "attr": "href"}}
    )
    assert result["values"]["items"] == [
        {
            "title": "Desk lamp",
            "price": 1299.0,
            "link": site.url("/shop/lamp.html"),
            "tags": ["light", "desk"],
        },
        {
            "title": "Floor lamp",
            "price": None,
            "link": site.url("/shop/floor.html"),
            "tags": ["floor"],
        },
        {"title": "Lamp mug", "price": 2.5, "link": site.url("/shop/mug.html"), "tags": []},
    ]
    assert result["values"]["next"] == "listing-2.html" and result["missing"] == []


async def test_records_nest_and_read_their_own_element(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/listing.html"))
    fields = {
        "list": {
            "selector": ".cards",
            "fields": {
                "first": {"selector": ".card", "fields": {"tags": {"selector": "li", "all": True}}},
                "cards": {"selector": ".card", "all": True, "fields": {"own": {"attr": "class"}}},
            },
        },
        "none": {"selector": ".nope", "fields": {"x": ".x"}},
    }
    result = await act("extract", ctx, fields=fields)
    assert result["values"] == {
        "list": {
            "first": {"tags": ["light", "desk"]},
            "cards": [{"own": "card"}] * 3,
        },
        "none": None,
    }
    assert result["missing"] == ["none"]


async def test_extract_waits_for_fields_written_after_load(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/deals.html?ms=300"))
    fields = {"title": ".deal-title", "price": {"selector": ".deal-price", "type": "number"}}
    result = await act("extract", ctx, fields=fields)
    assert result["values"] == {"title": "Desk lamp", "price": 19.0}
    await act("navigate", ctx, url=site.url("/shop/deals.html?ms=300"))
    deals = {"selector": ".deal", "all": True, "fields": fields}
    result = await act("extract", ctx, fields={"deals": deals}, required=["deals"])
    assert result["values"]["deals"] == [
        {"title": "Desk lamp", "price": 19.0},
        {"title": "Mug", "price": None},
    ]


async def test_extract_without_its_fields_fails_naming_them(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/listing.html"))
    with pytest.raises(TaskplateError) as caught:
        await act(
            "extract", ctx, fields={"title": ".deal-title", "price": ".deal-price"}, timeoutMs=200
        )
    assert caught.value.code is ErrorCode.ELEMENT_NOT_FOUND
    assert caught.value.message == (
        'no field found after 200 ms: title (".deal-title"), price (".deal-price")'
    )
    with pytest.raises(TaskplateError) as caught:
        await act(
            "extract", ctx, fields={"t": ".t", "sale": ".sale"}, required=["sale"], timeoutMs=200
        )
    assert caught.value.code is ErrorCode.ELEMENT_NOT_FOUND
    assert caught.value.message == 'required field not found after 200 ms: sale (".sale")'
    optional = await act("extract", ctx, fields={"title": ".deal-title"}, optional=True)
    assert optional == {"values": {"title": None}, "missing": ["title"]}
    with pytest.raises(TaskplateError) as caught:
        await act("extract", ctx, fields={"t": ".t"}, required=["x"])
    assert caught.value.code is ErrorCode.INVALID_PARAMETER and '"x"' in caught.value.message


async def test_a_bad_selector_in_a_record_is_invalid_parameter(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/deals.html?ms=50"))
    bad = {"selector": ".deal", "all": True, "fields": {"x": "a[["}}
    with pytest.raises(TaskplateError) as caught:
        await act("extract", ctx, fields={"deals": bad}, timeoutMs=3000)
    assert caught.value.code is ErrorCode.INVALID_PARAMETER


async def test_extract_waits_across_a_page_that_moves_on_by_script(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/redirect-by-script.html"))
    # the fields are on the page it moves to, 100 ms after it loads: read there
    result = await act("extract", ctx, fields={"lead": "p.lead"}, required=["lead"])
    assert result["values"]["lead"].startswith("A warming soup")


async def test_fields_named_like_javascripts_own_properties_are_read_as_fields(
    ctx: ActionContext, site: FixtureServer
) -> None:
    """A field named __proto__ (or constructor) is a field: the page's object for it has no
    prototype, so it is an own key, not a prototype set (before: "extract failed: '__proto__'",
    Python's KeyError text)."""
    await act("navigate", ctx, url=site.url("/shop/listing.html"))
    names = {"__proto__": ".next", "constructor": ".next", "toString": ".next"}
    card = {"selector": ".card", "all": True, "fields": {"__proto__": ".t"}}
    result = await act("extract", ctx, fields={**names, "cards": card})
    assert [result["values"][n] for n in names] == ["Next"] * 3
    assert [c["__proto__"] for c in result["values"]["cards"]] == [
        "Desk lamp",
        "Floor lamp",
        "Lamp mug",
    ]
