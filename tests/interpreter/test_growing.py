"""A forEach that grows while it runs (enqueue): each item once by its key, the bound, the
depth, the same sliding window and partial success, on a data-only template (no browser)."""

from __future__ import annotations

import anyio
import pytest

from taskplate.interpreter import RunManager

pytestmark = pytest.mark.anyio


async def grow(manager: RunManager, **inputs: object) -> dict:
    run_id = await manager.submit("grow", inputs)
    with anyio.fail_after(60):
        return await manager.wait(run_id)


def depth(n: int) -> int:
    return n.bit_length() - 1


async def test_items_grow_breadth_first_each_once_with_their_depth(manager: RunManager) -> None:
    answer = await grow(manager)
    assert answer["status"] == "succeeded"
    items = answer["result"]["items"]
    numbers = [i["n"] for i in items]
    assert sorted(numbers) == list(range(1, 32))  # 1000 + n has n's key: never run
    assert all(i["depth"] == depth(i["n"]) for i in items)
    assert [i["depth"] for i in items] == sorted(i["depth"] for i in items)  # breadth first
    assert answer["result"]["summary"] == {
        "total": 31,
        "succeeded": 31,
        "failed": 0,
        "skipped": 0,
        "dropped": 0,
    }
    assert answer["progress"]["items"]["total"] == 31
    assert answer["progress"]["items"]["growing"] is True  # the total was what was known so far
    assert "etaMs" not in answer["progress"]["items"]  # none left
    assert manager.sessions.sessions == {}  # no browser for a loop of data steps


async def test_the_bound_drops_what_is_beyond_it(manager: RunManager) -> None:
    answer = await grow(manager, most=10, concurrency=1)
    assert [i["n"] for i in answer["result"]["items"]] == list(range(1, 11))
    assert answer["result"]["summary"]["total"] == 10
    assert answer["result"]["summary"]["dropped"] > 0
    capped = await grow(manager, most=100)  # limits.maxItems (40) holds above maxItems
    assert capped["result"]["summary"]["total"] == 31
    many = await grow(manager, start=list(range(100, 150)), most=1000)
    assert many["result"]["summary"]["total"] == 40


async def test_a_failed_item_adds_nothing_and_the_others_go_on(manager: RunManager) -> None:
    answer = await grow(manager, failOn=2)
    assert answer["status"] == "partial_success"
    items = {i["n"]: i for i in answer["result"]["items"]}
    assert items[2]["success"] is False
    assert items[2]["error"]["message"].endswith("item 2 fails on purpose")
    assert 4 not in items and 5 not in items and 3 in items and 7 in items


async def test_an_enqueue_that_is_not_a_list_fails_its_item_clearly(manager: RunManager) -> None:
    answer = await grow(manager, badOn=3)
    items = {i["n"]: i for i in answer["result"]["items"]}
    assert items[3]["success"] is False
    assert items[3]["error"] == {
        "code": "INVALID_PARAMETER",
        "message": 'step "tree" failed: enqueue of step "tree" needs a list, got str',
    }
    assert 6 not in items and 4 in items


async def test_bad_bounds_fail_the_loop_clearly(manager: RunManager) -> None:
    for most in (0, "ten"):
        answer = await grow(manager, most=most)
        assert answer["status"] == "failed"
        assert "maxItems of step" in answer["error"]["error"]
