"""The hand-written parser reads exactly the language of dsl/expr.lark: lark's LALR parser of
the grammar file and `parse_expression` accept the same texts and build the same trees."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskplate.dsl import ExpressionError, parse_expression
from taskplate.dsl._expr_ast import MACROS, MAX_DEPTH, _depth, _make
from taskplate.dsl._expr_parser import Token

GRAMMAR = Path(__file__).parents[2] / "dsl" / "expr.lark"
LARK = lark.Lark(
    GRAMMAR.read_text(encoding="utf-8"),
    parser="lalr",
    propagate_positions=True,
    maybe_placeholders=False,
)
_BINARY = {
    "or_": "||",
    "and_": "&&",
    "eq": "==",
    "ne": "!=",
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "in_": "in",
    "add": "+",
    "sub": "-",
    "mul": "*",
    "div": "/",
    "mod": "%",
}


def _token(t: lark.Token) -> Token:
    return Token(t.type, str(t), t.start_pos or 0, t.end_pos or 0)


def _convert(item: Any) -> Any:
    """lark's tree to the AST, through the same node factory the parser uses."""
    if isinstance(item, lark.Token):
        kind = "name" if item.type == "NAME" else item.type
        return _make(kind, item.start_pos or 0, item.end_pos or 0, str(item))
    start, end = item.meta.start_pos, item.meta.end_pos
    kind, ch = item.data, item.children
    if kind == "number":
        return _make("NUMBER", start, end, str(ch[0]))
    if kind == "string":
        return _make("STRING", start, end, str(ch[0]))
    if kind in ("true", "false", "null"):
        return _make(kind, start, end)
    if kind == "name":
        return _make("name", start, end, str(ch[0]))
    if kind == "attr":
        return _make("attr", start, end, _convert(ch[0]), str(ch[1]))
    if kind == "index":
        return _make("index", start, end, _convert(ch[0]), _convert(ch[1]))
    if kind in ("not_", "neg"):
        return _make("unary", start, end, "!" if kind == "not_" else "-", _convert(ch[0]))
    if kind in _BINARY:
        return _make("binary", start, end, _BINARY[kind], _convert(ch[0]), _convert(ch[1]))
    if kind == "cond":
        return _make("cond", start, end, *(_convert(c) for c in ch))
    if kind == "call":
        return _make("call", start, end, _token(ch[0]), [_convert(c) for c in ch[1:]])
    if kind == "list":
        return _make("list", start, end, [_convert(c) for c in ch])
    assert kind == "map", kind
    return _make("map", start, end, [(_token(p.children[0]), _convert(p.children[1])) for p in ch])


def _by_lark(text: str) -> Any:
    if not text.strip():
        return ("error", 0)  # parse_expression refuses an empty text before parsing
    try:
        return ("tree", _convert(LARK.parse(text)))
    except lark.exceptions.UnexpectedToken as exc:
        return ("error", exc.token.start_pos if exc.token.type != "$END" else len(text))
    except lark.exceptions.UnexpectedCharacters as exc:
        return ("error", exc.pos_in_stream)
    except ExpressionError as exc:
        return ("error", exc.start)


def _by_us(text: str) -> Any:
    try:
        return ("tree", parse_expression(text))
    except ExpressionError as exc:
        if any(f"{name}()" in exc.message for name in MACROS):
            return ("error", "list operation")  # found while reading, before a later typo
        return ("error", exc.start)


EXAMPLES = [
    "inputs.urls[0]",
    "a ? b : c ? d : e",
    "(a ? b : c) ? d : e",
    "1 + 2 * 3 - 4 / 5 % 6",
    "!a && -b || c == d != e",
    "a < b <= c > d >= e in f",
    "f(1, 'x', \"y\\n\", [1, 2], {a: 1, 'b c': [true, false, null]})",
    "filter(steps.pages.items, p, p.price < inputs.max)",
    "sortBy(x, y, y.k, 'desc')[0].name",
    "(a) + (b)",
    "!(a)",
    "-(-(1))",
    "a.b.c[d][e.f]",
    "{}",
    "[]",
    "f()",
    "1.5e3 + 2E-2",
    "truex || inputs || nullable",
    "a..b",
    "a ? b",
    "1 +",
    "a @ b",
    "a & b",
    "f(1,)",
    "[1, 2",
    "{a 1}",
    "{1: 2}",
    "a b",
    "(a",
    "a)",
    "a.1",
    "'unterminated",
    "a = b",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_examples_read_the_same_as_with_lark(text: str) -> None:
    assert _by_us(text) == _by_lark(text)


PIECES = [
    "a",
    "steps",
    "f",
    "map",
    "x",
    ".",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    "?",
    "!",
    "-",
    "+",
    "*",
    "==",
    "<=",
    "<",
    "&&",
    "||",
    "true",
    "null",
    "0",
    "2.5",
    "'s'",
    '"t"',
    " ",
]


def test_in_is_a_keyword_everywhere() -> None:
    """Where lark's contextual lexer differs, the keyword rule is the one a reader expects:
    lark reads `a inputs` as `a in puts` and a lone `in` as a name; both are mistakes."""
    assert _by_lark("a inputs")[0] == "tree"
    with pytest.raises(ExpressionError, match="unexpected 'inputs'"):
        parse_expression("a inputs")
    with pytest.raises(ExpressionError, match="unexpected 'in'"):
        parse_expression("in")
    assert parse_expression("'a' in inputs.names").op == "in"  # type: ignore[attr-defined]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=14))
def test_random_texts_read_the_same_as_with_lark(pieces: list[str]) -> None:
    text = " ".join(pieces)
    ours, theirs = _by_us(text), _by_lark(text)
    if theirs[0] == "tree" and _depth(theirs[1]) > MAX_DEPTH:
        return  # refused for depth by both, with different positions
    if ours == ("error", "list operation"):
        assert theirs[0] == "error", text  # a misused list operation, refused by both
        return
    assert ours == theirs, text
