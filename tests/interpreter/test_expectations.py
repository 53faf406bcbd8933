"""A case's item expectations name their loop: recorded from the outermost loop that ran (not
the last page's inner rows), checked against the loop they name, and a failure says which."""

from __future__ import annotations

from typing import Any

from taskplate.interpreter.cases._expectations import (
    Broken,
    broken,
    expectations_from,
    in_recorded_order,
)


def step(path: str, status: str = "succeeded") -> dict[str, Any]:
    return {"stepPath": path, "status": status}


# two pages, each with rows: the first page's rows all read, the second's second row failed
NESTED = {
    "status": "succeeded",
    "steps": [
        step("open"),
        step("pages[0]/open"),
        step("pages[0]/rows[0]/read"),
        step("pages[0]/rows[1]/read"),
        step("pages[1]/open"),
        step("pages[1]/rows[0]/read"),
        step("pages[1]/rows[1]/read", "failed"),
        step("pages[1]/rows[2]/read"),
    ],
}


def test_items_are_recorded_from_the_outermost_loop_and_name_it() -> None:
    expect = expectations_from(NESTED, NESTED)
    assert expect["items"] == {
        "loop": "pages",
        "count": 2,
        "succeeded": 1,
        "failed": 1,
        "success": [True, False],
    }
    assert broken(expect, NESTED) == []


def test_a_broken_item_count_names_its_loop() -> None:
    assert broken({"items": {"loop": "pages", "count": 3}}, NESTED) == [
        Broken("items.count of loop pages", "expected 3, got 2")
    ]
    assert broken({"items": {"count": 3}}, NESTED) == [  # the outermost loop by default
        Broken("items.count of loop pages", "expected 3, got 2")
    ]


def test_an_inner_loop_counts_its_items_in_every_outer_item() -> None:
    rows = {"loop": "pages/rows", "count": 5, "succeeded": 4, "failed": 1}
    assert broken({"items": rows}, NESTED) == []
    assert broken({"items": {**rows, "count": 4}}, NESTED) == [
        Broken("items.count of loop pages/rows", "expected 4, got 5")
    ]


def test_a_loop_inside_a_group_is_named_by_its_path() -> None:
    answer = {
        "status": "failed",
        "steps": [step("read/pages[0]/open"), step("read/pages[1]/x", "failed")],
    }
    assert expectations_from(answer, answer)["items"]["loop"] == "read/pages"


def test_lists_holding_the_recorded_items_in_another_order_are_put_back_and_named() -> None:
    recorded = {"title": "Wood", "titles": ["Oak", "Pine", "Ash"], "rows": [{"a": 1}, {"a": 2}]}
    read = {"title": "Wood", "titles": ["Ash", "Oak", "Pine"], "rows": [{"a": 2}, {"a": 1}]}
    again, lists = in_recorded_order(recorded, read)
    assert again == recorded
    assert lists == ["/titles", "/rows"]


def test_a_list_that_lost_gained_or_changed_an_item_is_left_as_read() -> None:
    recorded = {"titles": ["Oak", "Pine", "Ash"]}
    for read in (["Ash", "Oak"], ["Ash", "Oak", "Pine", "Elm"], ["Ash", "Oak", "Fir"]):
        assert in_recorded_order(recorded, {"titles": read}) == ({"titles": read}, [])
    assert in_recorded_order(recorded, recorded) == (recorded, [])
    assert in_recorded_order(recorded, None) == (None, [])
