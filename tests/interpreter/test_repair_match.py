"""The live element most like the recorded one is found by its text, tag, attributes and place,
and named by its most stable selector first."""

from __future__ import annotations

from typing import Any

from taskplate.interpreter._repair_match import ranked, selectors_for


def element(tag: str, text: str, **kw: Any) -> dict[str, Any]:
    return {
        "tag": tag,
        "text": text,
        "id": kw.get("id"),
        "classes": kw.get("classes", []),
        "attrs": kw.get("attrs", {}),
        "role": kw.get("role"),
        "nth": kw.get("nth", 1),
        "siblings": kw.get("siblings", 1),
        "parent": kw.get("parent"),
    }


def test_the_renamed_element_with_the_same_text_ranks_first() -> None:
    recorded = element("p", "12.50", classes=["price"], attrs={"data-testid": "price"})
    live = [
        element("main", "Desk lamp In stock. 12.50 Ships in two days."),
        element("p", "Ships in two days.", classes=["note"]),
        element("p", "12.50", classes=["cost"], attrs={"data-testid": "price"}),
    ]
    assert [i for _, i in ranked(recorded, live)] == [2]


def test_nothing_alike_ranks_nothing() -> None:
    recorded = element("p", "12.50", classes=["price"])
    assert ranked(recorded, [element("p", "Ships in two days.", classes=["note"])]) == []


def test_stable_attributes_come_before_classes_and_place_and_generated_names_are_left_out() -> None:
    live = element(
        "button",
        "Buy",
        id="buy",
        classes=["btn", "css-1x2y3z4"],
        attrs={"data-testid": "buy", "name": "buy", "aria-label": "Buy now"},
        nth=2,
        siblings=2,
        parent={"tag": "div", "id": None, "classes": ["actions"]},
    )
    assert selectors_for(live) == [
        "#buy",
        'button[data-testid="buy"]',
        'button[name="buy"]',
        'button[aria-label="Buy now"]',
        "button.btn",
        "div.actions > button",
        "div.actions > button:nth-of-type(2)",
        "button",
    ]
    generated = element("div", "x", id="ember1234")
    assert "#ember1234" not in selectors_for(generated)
