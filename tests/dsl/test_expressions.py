"""The expression language: parsing, evaluation semantics, functions, limits and the sandbox."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.contract import MAX_VALUE_DEPTH, value_depth
from taskplate.dsl import ExpressionError, evaluate, parse_expression
from taskplate.dsl._values import Const, Interp, Single, Unparsed, compile_value, render
from tests.fuzzing import fuzz_settings

SCOPE: dict[str, Any] = {
    "inputs": {
        "urls": ["https://a.test/x", "https://b.test/y"],
        "n": 3,
        "name": "Ada",
        "empty": "",
    },
    "steps": {"info": {"title": "Home", "status": 200}},
    "item": {"k": [1, 2, 3]},
    "index": 1,
}


def ev(text: str, scope: dict[str, Any] | None = None) -> Any:
    return evaluate(parse_expression(text), SCOPE if scope is None else scope)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("inputs.n * 2 + 1", 7),
        ("(inputs.n + 1) * 2", 8),
        ("7 / 2", 3.5),
        ("5 - 2 - 1", 2),
        ("2.5 - 1", 1.5),
        ("6 / 2", 3),
        ("7 % 3", 1),
        ("-inputs.n", -3),
        ("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3", True),
        ("'a' < 'b'", True),
        ("1 == 1.0", True),
        ("true == 1", False),
        ("[1, {a: 2}] == [1, {a: 2}]", True),
        ("inputs.name || 'anonymous'", "Ada"),
        ("inputs.empty || 'anonymous'", "anonymous"),
        ("inputs.empty && 'x'", ""),
        ("inputs.n > 2 ? 'many' : 'few'", "many"),
        ("!inputs.empty", True),
        ("'b' in ['a', 'b']", True),
        ("'da' in inputs.name", True),
        ("'title' in steps.info", True),
        ("inputs.urls[-1]", "https://b.test/y"),
        ("inputs.urls[5]", None),
        ("steps.info['title']", "Home"),
        ("steps.missing.title", None),
        ("item.k[index]", 2),
        ("{a: 1, 'b c': [true, null]}", {"a": 1, "b c": [True, None]}),
        ("'it\\'s'", "it's"),
        ("'^\\d+$'", "^\\d+$"),
        ('"line\\nbreak"', "line\nbreak"),
        ("1e3", 1000.0),
    ],
)
def test_operators_and_literals(text: str, expected: Any) -> None:
    assert ev(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("length(inputs.urls)", 2),
        ("lower('AbC') + upper('x') + trim('  y ')", "abcXy"),
        ("contains(inputs.urls, 'https://a.test/x') && contains('abc', 'b')", True),
        ("startsWith('abc', 'ab') && endsWith('abc', 'bc')", True),
        ("join(['a', 1, true, null], '-')", "a-1-true-"),
        ("join(['a', 'b'])", "a,b"),
        ("split('a,b,,c', ',')", ["a", "b", "", "c"]),
        ("replace('a-b-c', '-', '+')", "a+b+c"),
        ("regexMatch('order 42', '\\d+$')", True),
        ("regexReplace('a1b22', '\\d+', '#')", "a#b#"),
        ("default(null, 5)", 5),
        ("default(0, 5)", 0),
        ("coalesce(null, null, 'x', 'y')", "x"),
        ("toJson({b: 1, a: [2]})", '{"a": [2], "b": 1}'),
        ("fromJson('{\"a\": [1, 2]}').a[1]", 2),
        ("keys({a: 1, b: 2})", ["a", "b"]),
        ("values({a: 1, b: 2})", [1, 2]),
        ("pluck([{a: 1}, {b: 2}, 3], 'a')", [1, None, None]),
        ("unique([1, 1, 'a', 'a', {x: 1}, {x: 1}])", [1, "a", {"x": 1}]),
        ("flatten([[1], 2, [3, [4]]])", [1, 2, 3, [4]]),
        ("min(3, 1, 2) + max([3, 7, 2])", 8),
        ("min([])", None),
        ("round(2.567, 2)", 2.57),
        ("round(2.5)", 2),
        ("urlHost(inputs.urls[0])", "a.test"),
        ("urlJoin('https://a.test/x/y', '../z')", "https://a.test/z"),
        ("format('{0} of {1} {{braces}}', 1, 'two')", "1 of two {braces}"),
    ],
)
def test_functions(text: str, expected: Any) -> None:
    assert ev(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("inputs.n + 'x'", "cannot add number and string"),
        ("1 / 0", "division by zero"),
        ("inputs.n.foo", "cannot read 'foo' of number"),
        ("nothing", 'unknown name "nothing"'),
        ("lenght(inputs.urls)", 'unknown function "lenght"'),
        ("length(1)", "length() argument 1 must be"),
        ("length(1, 2)", "length() takes 1 argument, got 2"),
        ("split('a', '')", "separator must not be empty"),
        ("regexMatch('a', '(')", "pattern is invalid"),
        ("format('{3}', 1)", "has no matching argument"),
        ("fromJson('{')", "invalid JSON"),
        ("'a' < 1", "cannot compare string with number"),
        ("[1][0.5]", "whole number"),
    ],
)
def test_runtime_errors_are_clear(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ev(text)


@pytest.mark.parametrize(
    ("text", "message", "start"),
    [
        ("1 +", "unexpected end of expression", 3),
        ("a..b", "unexpected '.'", 2),
        ("a ? b", "unexpected end", 5),
        ("a @ b", "unexpected character '@'", 2),
        ("", "empty expression", 0),
    ],
)
def test_syntax_errors_point_at_the_problem(text: str, message: str, start: int) -> None:
    with pytest.raises(ExpressionError, match=message) as caught:
        parse_expression(text)
    assert caught.value.start == start


def test_python_attributes_are_unreachable() -> None:
    scope = {"inputs": {"x": "text"}, "steps": {}}
    for text in (
        "inputs.__class__",
        "inputs['__class__']",
        "inputs.x.__class__",
        "steps.__dict__",
        "inputs.keys",
        "lower.__globals__",
    ):
        try:
            value = ev(text, scope)
        except ExpressionError:
            continue
        assert value is None, text


def test_no_name_reaches_the_environment_or_files() -> None:
    for text in (
        "os",
        "open('x')",
        "__import__('os')",
        "environ",
        "eval('1')",
        "getattr(inputs, 'x')",
    ):
        with pytest.raises(ExpressionError):
            ev(text, {"inputs": {}})


def test_deep_nesting_is_refused_when_parsed() -> None:
    with pytest.raises(ExpressionError, match="nests deeper than 64 levels"):
        parse_expression("-" * 200 + "1")
    with pytest.raises(ExpressionError, match="nests deeper"):
        parse_expression("[" * 100 + "]" * 100)
    assert parse_expression("(" * 30 + "1" + ")" * 30)


def test_long_expressions_are_refused() -> None:
    with pytest.raises(ExpressionError, match="longer than 4096"):
        parse_expression("1 + " * 2000 + "1")


def test_huge_strings_and_lists_stop_with_a_clear_error() -> None:
    big = "x" * (600 * 1024)
    with pytest.raises(ExpressionError, match="longer than"):
        ev("s + s", {"s": big})
    with pytest.raises(ExpressionError, match="longer than"):
        ev("replace(s, 'x', 'xx')", {"s": big})
    with pytest.raises(ExpressionError, match="longer than"):
        ev("join([s, s, s], '')", {"s": big})
    with pytest.raises(ExpressionError, match="longer than"):
        ev("split(s, 'x')", {"s": big})


def test_catastrophic_regex_is_stopped() -> None:
    with pytest.raises(ExpressionError, match="took too long"):
        ev("regexMatch(s, '(a|aa)+$')", {"s": "a" * 40 + "!"})


def test_a_scalar_that_is_one_expression_keeps_its_type() -> None:
    errors: list[Any] = []
    value = compile_value("${{ inputs.urls }}", "/x", errors)
    assert isinstance(value, Single)
    assert render(value, SCOPE) == SCOPE["inputs"]["urls"]
    padded = compile_value("  ${{ inputs.n }}  ", "/x", errors)
    assert render(padded, SCOPE) == 3


def test_interpolation_joins_parts_as_text() -> None:
    errors: list[Any] = []
    value = compile_value(
        "n=${{ inputs.n }}, none=${{ null }}, ok=${{ true }}, l=${{ [1] }}", "/x", errors
    )
    assert isinstance(value, Interp)
    assert render(value, SCOPE) == "n=3, none=, ok=true, l=[1]"
    assert errors == []


def test_braces_inside_expression_strings_do_not_end_it() -> None:
    errors: list[Any] = []
    value = compile_value("${{ '}}' + \"{{\" }}", "/x", errors)
    assert render(value, {}) == "}}{{"
    assert render(compile_value("${{ {a: {b: 1}} }}", "/x", errors), {}) == {"a": {"b": 1}}
    assert errors == []


def test_broken_expressions_are_recorded_not_raised() -> None:
    errors: list[Any] = []
    value = compile_value("x ${{ 1 + }}", "/steps/0/with/a", errors)
    assert isinstance(value, Unparsed)
    assert errors[0].pointer == "/steps/0/with/a"
    with pytest.raises(ExpressionError):
        render(value, {})
    assert compile_value(5, "/x", errors) == Const(5)


BIG = {"big": 10**400, "long": "9" * 300, "text": "a" * (1024 * 1024)}


@pytest.mark.parametrize(
    ("text", "message", "start", "end"),
    [
        ("1 + 1e400 % 3", "number 1e400 is out of range", 4, 9),
        ("1e308 + 1e308", "'+' of 1e+308 and 1e+308 is out of range", 0, 13),
        ("-1e308 * 10", "'*' of -1e+308 and 10 is out of range", 0, 11),
        ("[inputs.big / 1]", "'/' of 1000000000…(401 digits) and 1 is out of range", 1, 15),
        ("inputs.big + 0.5", "'+' of", 0, 16),
        ("1 % 0", "division by zero", 0, 5),
        ("1 / 0.0", "division by zero", 0, 7),
        ("round(1.5, 1e300)", "round() digits must be a whole number from -308 to 308", 0, 17),
        ("fromJson('NaN')", "NaN is not a JSON number", 0, 15),
        ("fromJson('1e400')", "number 1e400 is out of range", 0, 17),
        ("toNumber(inputs.long + '.5')", "at most 256 characters", 0, 28),
    ],
)
def test_math_errors_are_coded_with_their_position(
    text: str, message: str, start: int, end: int
) -> None:
    with pytest.raises(ExpressionError) as caught:
        ev(text, {"inputs": BIG})
    assert message in caught.value.message
    assert (caught.value.start, caught.value.end) == (start, end)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("round(1, -30000000)", "round() digits must be a whole number from -308 to 308"),
        ("toNumber(inputs.text)", "toNumber() reads texts of at most 256 characters"),
        (
            "regexMatch('a', inputs.long + inputs.long + inputs.long + inputs.long)",
            "regexMatch() patterns have at most 1000 characters",
        ),
        (
            "globMatch('a', [inputs.long + inputs.long + inputs.long + inputs.long])",
            "globMatch() patterns have at most 1000 characters",
        ),
        ("parseDate(inputs.long)", "parseDate() reads dates and patterns of at most 256"),
        ("formatDate('2026-01-01', inputs.long)", "formatDate() reads dates and patterns"),
        ("format('{0}{0}', inputs.text)", "string result longer than 1048576 characters"),
        ("regexReplace(inputs.long, '9', inputs.text)", "string result longer than 1048576"),
    ],
)
def test_costly_arguments_are_refused_past_their_bound(text: str, message: str) -> None:
    began = time.process_time()
    with pytest.raises(ExpressionError, match=re.escape(message)):
        ev(text, {"inputs": BIG})
    assert time.process_time() - began < 0.5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("map(inputs.items, x, contains(inputs.text, 'zz'))", "more than 8388608 characters"),
        ("map(inputs.items, x, x in inputs.items)", "more than 50000 operations"),
        ("map(inputs.items, x, length(unique(inputs.items)))", "more than 50000 operations"),
        ("map(inputs.items, x, regexMatch(inputs.a, '(a|aa)+$'))", "50 ms in all"),
        ("map(inputs.items, x, inputs.items == inputs.items)", "more than 50000 operations"),
    ],
)
def test_an_evaluation_stops_at_its_budget(text: str, message: str) -> None:
    scope = {"inputs": {**BIG, "items": list(range(50_000)), "a": "a" * 30 + "!"}}
    began = time.process_time()
    with pytest.raises(ExpressionError, match=re.escape(message)):
        ev(text, scope)
    assert time.process_time() - began < 0.5  # 0.02-0.1 s on an idle machine


def test_the_expressions_of_one_value_share_a_budget() -> None:
    scope = {"inputs": {"items": list(range(5000))}}
    one = "${{ length(map(inputs.items, x, x)) }}"  # about 10,000 operations
    assert render(compile_value({"a": one}, "", []), scope) == {"a": 5000}
    many = compile_value({f"k{i}": one for i in range(30)}, "", [])
    began = time.process_time()
    with pytest.raises(ExpressionError, match="visit more than 25000 items"):
        render(many, scope)
    assert time.process_time() - began < 0.5


@pytest.mark.fuzz
@fuzz_settings(300)
@given(
    st.integers(0, 2000),
    st.sampled_from(["[", '{"a":', "[1,", '{"[":']),
    st.text(alphabet='[]{}",:1a\\ ', max_size=8),
)
def test_fromjson_of_any_depth_answers_a_value_within_the_bound_or_an_expression_error(
    levels: int, opener: str, middle: str
) -> None:
    closer = {"[": "]", '{"a":': "}", "[1,": "]", '{"[":': "}"}[opener]
    text = opener * levels + middle + closer * levels
    try:
        value = evaluate(parse_expression("fromJson(s)"), {"s": text})
    except ExpressionError as error:
        assert "Error" not in str(error).split("(at")[0]  # ours, not Python's exception names
        return
    assert value_depth(value) <= MAX_VALUE_DEPTH
