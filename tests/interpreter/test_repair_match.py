"""The live element most like the recorded one is found by its text, tag, attributes, place,
ancestors and neighbours, and named by its most stable selector first (a place last); a
look-alike is kept off by a class it has and the recorded element has not; a selector naming
its element by its place or a generated-looking name is brittle."""

from __future__ import annotations

from typing import Any

import pytest

from taskplate.interpreter.heal import MARGIN, brittle, excluding, likeness, ranked, selectors_for


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
        "ancestors": kw.get("ancestors", []),
        "before": kw.get("before"),
        "after": kw.get("after"),
    }


def box(tag: str, *classes: str, id: str | None = None, **data: str) -> dict[str, Any]:
    return {"tag": tag, "id": id, "classes": list(classes), "data": data}


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
        "div.actions #buy",
        'div.actions button[data-testid="buy"]',
        'div.actions button[name="buy"]',
        "button",
        "div.actions > button:nth-of-type(2)",
        "div > button:nth-of-type(2)",
    ]
    generated = element("div", "x", id="ember1234")
    assert "#ember1234" not in selectors_for(generated)


def test_a_look_alike_with_the_same_classes_ranks_below_the_element_in_its_recorded_place() -> None:
    product = [box("div", "product", id="main-product"), box("main", "content")]
    recorded = element(
        "span", "4.6", classes=["stars"], parent=box("div", "rating"), ancestors=product,
        after={"tag": "span", "text": "128 reviews"},
    )  # fmt: skip
    promo = element(
        "span", "4.9", classes=["stars"], parent=box("div", "rating", "promo"),
        ancestors=[box("aside", "promo-box"), box("main", "content")],
        after={"tag": "span", "text": "12 reviews"},
    )  # fmt: skip
    real = element(
        "span", "4.6", classes=["stars"], parent=box("div", "rating"), ancestors=product,
        after={"tag": "span", "text": "128 reviews"},
    )  # fmt: skip
    assert ranked(recorded, [promo, real])[0][1] == 1
    # named under the ancestor that names its place, which the look-alike is not in
    assert "#main-product span.stars" in selectors_for(real)


def test_boxes_named_by_other_ids_are_other_boxes_however_alike_their_classes() -> None:
    """A cell that lost its class in its row (named by an id) ranks above the price of another
    row (another id, the same classes) by more than the margin; without ids it would not."""
    rows = [box("tbody"), box("table", "plans")]

    def cell(text: str, row: str | None, *classes: str, name: str = "Basic") -> dict[str, Any]:
        return element(
            "td", text, classes=list(classes), nth=2, siblings=3,
            parent=box("tr", "row", id=row), ancestors=[box("tr", "row", id=row), *rows],
            before={"tag": "td", "text": name},
        )  # fmt: skip

    recorded = cell("€9", "row-basic", "price")
    mine, theirs = cell("€9", "row-basic"), cell("€29", "row-team", "price", name="Team")
    (best, first), (rival, _) = ranked(recorded, [theirs, mine])
    assert first == 1 and best - rival >= MARGIN
    no_ids = cell("€9", None, "price")
    near = cell("€29", None, "price", name="Team")
    assert likeness(no_ids, cell("€9", None)) - likeness(no_ids, near) < MARGIN


def test_a_field_named_otherwise_is_another_field_not_a_rival() -> None:
    """A login form's user field, its id changed and wrapped in a box of its own, ranks above
    the password field beside it (still in the form, its place) by more than the margin: the
    password field's `name` and `type` name another field."""
    form = box("form", "login-form", id="login")

    def field(name: str, kind: str, parent: dict[str, Any], **kw: Any) -> dict[str, Any]:
        attrs = {"name": name, "type": kind}
        return element("input", "", classes=["field"], attrs=attrs, parent=parent, **kw)

    recorded = field("username", "text", form, id="user", nth=1, siblings=2, ancestors=[form])
    wrapped = field("username", "text", box("div", "block-wrap"), ancestors=[form])
    password = field("password", "password", form, id="pass", ancestors=[form])
    (best, first), (rival, _) = ranked(recorded, [password, wrapped])
    assert first == 1 and best - rival >= MARGIN


def test_a_look_alike_is_kept_off_by_a_class_it_or_its_box_has_and_the_recorded_one_has_not() -> (
    None
):
    recorded = element("h1", "Desk lamp", classes=["title"], parent=box("div", "product"))
    twin = element("h1", "Promo", classes=["title", "promo"], parent=box("div", "product"))
    inside = element("h1", "Promo", classes=["title"], parent=box("div", "product", "ad"))
    assert excluding(["h1.title"], recorded, [twin]) == ["h1.title:not(.promo)"]
    assert excluding(["h1.title"], recorded, [inside]) == ["h1.title:not(.ad *)"]
    assert excluding(["h1.title:not(.promo)"], recorded, [twin]) == []  # not twice


@pytest.mark.parametrize(
    ("selector", "why"),
    [
        ("ul > li:nth-child(3) a", "its place among its siblings"),
        ("table tr:first-of-type td", "its place among its siblings"),
        ("div.css-1x2y3z span", "a generated-looking name (css-1x2y3z)"),
        ("p.sc-abc123", "a generated-looking name (sc-abc123)"),
        ("#ember1234", "a generated-looking name (ember1234)"),
        ("main p.price", None),
        ('[data-testid="price"]', None),
    ],
)
def test_a_selector_naming_its_element_by_a_place_or_a_generated_name_is_brittle(
    selector: str, why: str | None
) -> None:
    assert brittle(selector) == why
