"""List operations (filter, map, exists, all, sortBy), toNumber, regexFind and dates: values,
static types and bounds."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from taskplate.dsl import ExpressionError, evaluate, parse_expression
from taskplate.dsl._types import NUMBER, STRING, array_of, object_of
from taskplate.dsl.expr._infer import ExprScope, StepRef, infer

ITEMS = [
    {"name": "a", "price": 3},
    {"name": "b", "price": 1},
    {"name": "c", "price": None},
    {"name": "d", "price": 1},
]
SCOPE: dict[str, Any] = {"inputs": {"max": 2, "items": ITEMS}, "steps": {}}


def ev(text: str, scope: dict[str, Any] | None = None) -> Any:
    return evaluate(parse_expression(text), SCOPE if scope is None else scope)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("filter(inputs.items, p, p.price != null && p.price < inputs.max)", [ITEMS[1], ITEMS[3]]),
        ("map(inputs.items, p, p.name)", ["a", "b", "c", "d"]),
        ("map([1, 2, 3], n, n * 2)", [2, 4, 6]),
        ("exists(inputs.items, p, p.price == 3)", True),
        ("exists([], p, true)", False),
        ("all(inputs.items, p, p.name != '')", True),
        ("all([], p, false)", True),
        ("all([1, 2], n, n > 1)", False),
        ("map(sortBy(inputs.items, p, p.price), p, p.name)", ["b", "d", "a", "c"]),
        ("map(sortBy(inputs.items, p, p.price, 'desc'), p, p.name)", ["a", "b", "d", "c"]),
        ("sortBy(['b', 'a', 'c'], s, s)", ["a", "b", "c"]),
        ("map(filter(inputs.items, i, i.price == 1), i, upper(i.name))", ["B", "D"]),
        ("map([[1, 2], [3]], row, map(row, n, n + index))", [[2, 3], [4]]),
    ],
)
def test_list_operations(text: str, expected: Any) -> None:
    assert ev(text, {**SCOPE, "index": 1}) == expected


def test_the_item_name_shadows_and_is_gone_afterwards() -> None:
    assert ev("map([1, 2], x, x) + [x]", {"x": 9, "steps": {}}) == [1, 2, 9]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("filter(inputs.items, 1, true)", "filter() needs a variable name as its second argument"),
        ("map(inputs.items, steps, 1)", '"steps" cannot name the item of map()'),
        ("map(inputs.items, p)", "map() takes 3 arguments (list, name, expression), got 2"),
        ("sortBy(inputs.items, p, p.name, 'up')", "sortBy() order must be 'asc' or 'desc'"),
        ("filter(inputs.max, p, p)", "filter() needs a list, got number"),
        ("sortBy([1, 'a'], x, x)", "sortBy() keys must all be numbers or all texts"),
        ("map(map(map(map(map([1], a, a), b, b), c, c), d, d), e, e)", "nest deeper than 4"),
    ],
)
def test_list_operation_mistakes_are_clear(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=re.escape(message)):
        ev(text)


def test_items_visited_are_bounded() -> None:
    rows = list(range(1000))
    with pytest.raises(ExpressionError, match="visit more than 25000 items"):
        ev("map(rows, a, map(rows, b, b))", {"rows": rows})
    assert len(ev("map(rows, a, a)", {"rows": rows})) == 1000


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("toNumber('$1,299.00')", 1299.0),
        ("toNumber('1.234,5', 'de')", 1234.5),
        ("toNumber('1.234,5')", 1234.5),
        ("toNumber('1 234,56 €', 'fr')", 1234.56),
        ('toNumber("CHF 1\'234.50")', 1234.5),
        ("toNumber('1,299.00', 'de-CH')", 1299.0),
        ("toNumber('EUR 12,50')", 12.5),
        ("toNumber('0,125')", 0.125),
        ("toNumber('1,234')", 1234),
        ("toNumber('−7')", -7),
        ("toNumber('(12.00)')", -12.0),
        ("toNumber(' 42 ')", 42),
        ("toNumber(3.5)", 3.5),
        ("toNumber('sold out')", None),
        ("toNumber('1,2,3.4.5')", None),
        ("toNumber(null)", None),
    ],
)
def test_to_number(text: str, expected: Any) -> None:
    assert ev(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("toNumber([1])", "toNumber() argument 1 must be string or number or null, got array"),
        ("toNumber('1', 'x1')", 'toNumber() "x1" is not a locale'),
        ("regexFind('a', '(')", "regexFind() pattern is invalid"),
        ("parseDate(5)", "parseDate() argument 1 must be string or null, got number"),
        ("formatDate('yesterday', 'YYYY')", '"yesterday" is not an ISO 8601 date'),
        ("parseDate('1 1', 'D D')", "names D twice"),
    ],
)
def test_text_function_mistakes_are_clear(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=re.escape(message)):
        ev(text)


def test_regex_find_returns_groups() -> None:
    found = ev("regexFind('Order 42-b', 'Order (\\d+)-(?P<size>\\w)')")
    assert found == {
        "match": "Order 42-b",
        "groups": ["42", "b"],
        "named": {"size": "b"},
        "start": 0,
    }
    assert ev("regexFind('Order 42', '(\\d+)').groups[0]") == "42"
    assert ev("regexFind('none', '\\d')") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parseDate('2026-01-31')", "2026-01-31"),
        ("parseDate('2026-01-31T09:30:00Z')", "2026-01-31T09:30:00Z"),
        ("parseDate('31 January 2026')", "2026-01-31"),
        ("parseDate('Jan 31, 2026')", "2026-01-31"),
        ("parseDate('31.01.2026')", "2026-01-31"),
        ("parseDate('31/01/26 14:05', 'DD/MM/YY HH:mm')", "2026-01-31T14:05:00"),
        ("parseDate('2026-02-30')", None),
        ("parseDate('soon')", None),
        ("formatDate('2026-01-31', 'D MMMM YYYY')", "31 January 2026"),
        ("formatDate('2026-01-31T09:05:00Z', 'DD.MM.YYYY [at] HH:mm')", "31.01.2026 at 09:05"),
        ("formatDate(parseDate('Jan 5, 2026'), 'YYYY-MM-DD')", "2026-01-05"),
    ],
)
def test_dates(text: str, expected: Any) -> None:
    assert ev(text) == expected


def test_now_is_the_current_utc_time() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    value = ev("now()")
    assert value.endswith("Z")
    assert before <= datetime.fromisoformat(value.replace("Z", "+00:00")) <= datetime.now(UTC)


def _problems(text: str) -> list[str]:
    item = object_of({"name": STRING, "price": NUMBER})
    pages = object_of({"items": array_of(item)})
    scope = ExprScope({"inputs": object_of({"max": NUMBER})}, {"pages": StepRef(pages)})
    _, problems = infer(parse_expression(text), scope)
    return [p.message for p in problems]


def test_the_item_type_comes_from_the_list() -> None:
    assert _problems("filter(steps.pages.items, p, p.pricee < 3)") == [
        '"p" has no property "pricee"; did you mean "price"?'
    ]
    assert _problems("map(steps.pages.items, p, p.name + 1)") == ["cannot add string and number"]
    assert _problems("sortBy(steps.pages.items, p, p.price, 'down')") == [
        "sortBy() order must be 'asc' or 'desc', got 'down'"
    ]
    assert _problems("exists(steps.pages.items, p, q)") == [
        'unknown name "q"; available: inputs, p, steps'
    ]
    assert _problems("filter(inputs.max, p, p)") == ["filter() needs a list, got number"]
    assert _problems("filter(steps.pages.items, p, p.price < inputs.max)") == []


def test_list_operation_results_are_typed() -> None:
    item = object_of({"name": STRING, "price": NUMBER})
    scope = ExprScope({}, {"pages": StepRef(object_of({"items": array_of(item)}))})
    typed, _ = infer(parse_expression("map(steps.pages.items, p, p.price)"), scope)
    assert typed == array_of(NUMBER)
    typed, _ = infer(parse_expression("sortBy(steps.pages.items, p, p.price)[0]"), scope)
    assert typed == item
    typed, _ = infer(parse_expression("all(steps.pages.items, p, p.price > 1)"), scope)
    assert typed.kind == "boolean"
