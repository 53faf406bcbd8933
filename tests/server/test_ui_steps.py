"""The run page's steps as a tree: each step under a line of the group or inner loop item it
ran in, the items of the outermost loop each a body of their own (an inner loop's rows are not
items of the page). Rendering only: the step rows as the page reads them."""

from __future__ import annotations

import re
from typing import Any

from taskplate.server.ui._steps import steps_by_item
from taskplate.server.ui._timeline import most_at_once, timeline


def step(path: str, action: str, t0: float, status: str = "succeeded") -> dict[str, Any]:
    last = path.rsplit("/", 1)[-1]
    return {
        "stepId": None if last.isdigit() else last,
        "stepPath": path,
        "itemIndex": None,
        "action": action,
        "status": status,
        "attempts": 1,
        "t0": t0,
        "t1": t0 + 0.01,
        "argsPreview": None,
        "error": None,
    }


def rows(html: str) -> list[str]:
    """Each row as `class: cell text`, the group lines and the steps' names in order."""
    found = re.findall(r"<tr class='?([a-z ]+)'?>(?:<td>\d*</td>)?<td[^>]*>([^<]*)</td>", html)
    return [f"{kind.split()[0]}: {text}" for kind, text in found]


def test_groups_and_inner_loop_items_are_lines_the_steps_hang_under() -> None:
    steps = [
        step("open", "navigate", 1),
        step("sign_in/1", "fill", 2),
        step("sign_in/wait", "wait_for", 3),
        step("pages[0]/go", "navigate", 4),
        step("pages[0]/rows[0]/read", "extract", 5),
        step("pages[0]/rows[1]/read", "extract", 6),
        step("pages[1]/go", "navigate", 7),
        step("pages[1]/rows[0]/read", "extract", 8, "failed"),
        step("page", "get_page_info", 9),
    ]
    html = steps_by_item(steps, "/runs/r")
    own, items = html.split("<h2>Items</h2>")
    assert rows(own) == [
        "step: open",
        "group: sign_in",
        "step: fill",
        "step: wait",
        "step: page",
    ]
    assert "class=depth-1 title=''>wait<" in own
    assert "2 items, 1 failed" in items  # the pages, not their rows
    assert rows(items.split("id=item-1")[0]) == [
        "step: go",
        "group: rows[0]",
        "step: read",
        "group: rows[1]",
        "step: read",
    ]


def test_in_flight_counts_the_outer_loops_items_not_their_rows() -> None:
    one_at_a_time = [  # a loop without concurrency: each page's rows inside it
        step("pages[0]/go", "navigate", 1),
        step("pages[0]/rows[0]/read", "extract", 1.5),
        step("pages[0]/rows[1]/read", "extract", 1.6),
        step("pages[1]/go", "navigate", 2),
        step("pages[1]/rows[0]/read", "extract", 2.5),
        step("pages[1]/rows[1]/read", "extract", 2.6),
    ]
    assert most_at_once(one_at_a_time) == 1


def test_the_timeline_marks_each_move_and_names_the_items_that_ran_twice() -> None:
    a, b = "host-a:101:aaaa1111", "host-b:202:bbbb2222"
    events = [
        {"kind": "released", "at": 1.5, "server": a, "graceRanOut": False, "itemsDone": 7},
        {"kind": "resumed", "at": 2.0, "server": b, "after": a, "reason": "stopped", "repeated": []},
        {"kind": "resumed", "at": 3.0, "server": a, "after": b, "reason": "died", "repeated": [9, 4]},
    ]  # fmt: skip
    html = timeline([step("open", "navigate", 1), step("read", "read_page", 4)], "/r", events)
    said = re.findall(r"<li><time>[^<]*</time> ([^<]*)</li>", html)
    assert said == [
        "host-a:101 stopped and handed the run over after 7 items",
        "resumed on host-b:202 after host-a:101 stopped; no item ran twice",
        "resumed on host-a:101 after host-b:202 died; items 4, 9 ran twice",
    ], html
    assert html.count("<line class=move") == 3  # a mark across the lanes at each move
    assert "Moves between servers" not in timeline([step("open", "navigate", 1)], "/r", [])
