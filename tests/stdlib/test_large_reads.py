"""Reads of a large page are bounded in the page and say so: `extract` stops a list at the last
whole match within maxBytes and cuts a text, `snapshot` lists at most 100,000 elements and stops at
timeoutMs, each with a flag and a warning, never a partial answer given as whole (#51)."""

from __future__ import annotations

import json

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib._context import ActionContext
from taskplate.stdlib.reading import snapshot
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

ROWS = {"selector": "a.t", "all": True, "fields": {"title": {}, "link": {"attr": "href"}}}


async def test_extract_stops_a_list_at_max_bytes_with_whole_records_and_a_warning(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/many.html?n=300"))
    whole = await act("extract", ctx, fields={"rows": ROWS})
    assert len(whole["values"]["rows"]) == 300 and "truncated" not in whole
    cut = await act("extract", ctx, fields={"rows": ROWS, "h": "h1"}, maxBytes=2_000)
    rows = cut["values"]["rows"]
    assert 0 < len(rows) < 300 and rows == whole["values"]["rows"][: len(rows)]
    assert len(json.dumps(cut["values"], separators=(",", ":"))) <= 2_000
    assert cut["truncated"] is True and cut["missing"] == []
    assert cut["warnings"][0] == (
        f"values.rows: the first {len(rows)} of 300 matches read: the values reached maxBytes "
        "(2,000 characters of JSON)"
    )
    assert "raise maxBytes (up to 1,000,000)" in cut["warnings"][-1]


async def test_extract_cuts_a_long_text_and_records_inside_records(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/many.html?n=500"))
    cut = await act("extract", ctx, fields={"all": "#rows"}, maxBytes=1_000)
    assert cut["truncated"] is True and len(cut["values"]["all"]) <= 1_000
    assert cut["values"]["all"].startswith("Item 0\nItem 1\n")
    assert cut["warnings"][0].startswith("values.all: cut at ")
    nested = {"list": {"selector": "#rows", "fields": {"rows": ROWS}}}
    inner = await act("extract", ctx, fields=nested, maxBytes=1_000)
    assert inner["warnings"][0].startswith("values.list.rows: the first ")
    assert 0 < len(inner["values"]["list"]["rows"]) < 500


async def test_extract_refuses_a_max_bytes_past_its_bound(ctx: ActionContext) -> None:
    with pytest.raises(TaskplateError) as caught:
        await act("extract", ctx, fields={"x": "p"}, maxBytes=1_000_001)
    assert caught.value.code is ErrorCode.INVALID_PARAMETER


async def test_snapshot_lists_at_most_its_bound_and_says_the_page_has_more(
    ctx: ActionContext, site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    await act("navigate", ctx, url=site.url("/many.html?n=50"))
    monkeypatch.setattr(snapshot, "MAX_ELEMENTS", 10)  # 100,000 in earnest
    snap = await act("snapshot", ctx)
    assert snap["total"] == 10 and snap["truncated"] is False
    assert [e["name"] for e in snap["elements"]] == [f"Item {i}" for i in range(10)]
    assert "first 10 interactive elements" in snap["warnings"][0]
    monkeypatch.undo()
    whole = await act("snapshot", ctx)
    assert whole["total"] == 50 and "warnings" not in whole
    assert [e["ref"] for e in whole["elements"][:10]] == [e["ref"] for e in snap["elements"]]


async def test_snapshot_stops_at_its_timeout_with_a_code_and_the_tab_goes_on(
    ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", ctx, url=site.url("/many.html?n=20000"))
    with pytest.raises(TaskplateError) as caught:
        await act("snapshot", ctx, timeoutMs=1)
    assert caught.value.code is ErrorCode.EXECUTION_ERROR
    assert caught.value.details == {"timeoutMs": 1}
    assert "did not finish within 1 ms" in caught.value.message
    assert "selector" in caught.value.recover_hint
    again = await act("snapshot", ctx, maxBytes=1_000)
    assert again["total"] == 20_000 and again["truncated"] is True
