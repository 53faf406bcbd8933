"""`--suggest` reads a record's field where extract reads it: inside the first match of the
records that hold it, so that a selector it suggests is one for inside the record."""

from __future__ import annotations

from typing import Any

import pytest

from taskplate.browser import matched_element
from taskplate.interpreter.heal import selector_of as _selector_of
from taskplate.stdlib._context import ActionContext
from tests.conftest import act
from tests.fixtures.server import FixtureServer

ARGS: dict[str, Any] = {
    "root": ".cards",
    "fields": {
        "items": {
            "selector": ".card",
            "all": True,
            "fields": {"title": ".t", "tags": {"selector": ".tags", "fields": {"tag": "li"}}},
        },
        "heading": "h1",
    },
}


def test_a_records_field_is_read_inside_the_records_that_hold_it() -> None:
    fields = ARGS["fields"]
    assert _selector_of(ARGS, ("fields", "heading")) == ("h1", ".cards", "h1")
    assert _selector_of(ARGS, ("fields", "items")) == (".card", ".cards", fields["items"])
    title = (".t", ":is(.cards) :is(.card)", ".t")
    assert _selector_of(ARGS, ("fields", "items", "fields", "title")) == title
    # the attr a field reads is repaired where its selector is read
    assert _selector_of(ARGS, ("fields", "items", "fields", "title", "attr")) == title
    assert _selector_of(ARGS, ("fields", "items", "fields", "tags", "fields", "tag")) == (
        "li",
        ":is(.cards) :is(.card) :is(.tags)",
        "li",
    )
    no_root = {"fields": ARGS["fields"]}
    assert _selector_of(no_root, ("fields", "items", "fields", "title"))[:2] == (
        ".t",
        ":is(.card)",
    )


@pytest.mark.anyio
async def test_the_root_of_a_records_field_is_its_first_record_on_the_page(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/shop/listing.html"))
    selector, root, _ = _selector_of(ARGS, ("fields", "items", "fields", "tags", "fields", "tag"))
    assert selector is not None
    count, element = await matched_element(await ctx.page(), selector, root)
    assert count == 2 and element is not None and element["text"] == "light"
