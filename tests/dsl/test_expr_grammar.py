"""The expression grammar as users meet it: lark's LALR parser of dsl/expr/expr.lark reads each text
into the expected tree (precedence, associativity, spans), or refuses it where the mistake is,
saying what was expected and, where it applies, what was probably meant."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskplate.dsl import ExpressionError, parse_expression
from taskplate.dsl.expr import _ast as ast


def show(n: ast.Node) -> str:
    if isinstance(n, ast.Lit):
        return repr(n.value)
    if isinstance(n, ast.Name):
        return n.name
    if isinstance(n, ast.Attr):
        return f"{show(n.obj)}.{n.name}"
    if isinstance(n, ast.Index):
        return f"{show(n.obj)}[{show(n.key)}]"
    if isinstance(n, ast.Unary):
        return f"({n.op}{show(n.operand)})"
    if isinstance(n, ast.Binary):
        return f"({show(n.left)} {n.op} {show(n.right)})"
    if isinstance(n, ast.Cond):
        return f"({show(n.test)} ? {show(n.then)} : {show(n.other)})"
    if isinstance(n, ast.Call):
        return f"{n.func}({', '.join(show(a) for a in n.args)})"
    if isinstance(n, ast.Macro):
        return (
            f"{n.func}({show(n.target)}, {n.var}, {', '.join(show(a) for a in (n.body, *n.extra))})"
        )
    if isinstance(n, ast.ListLit):
        return f"[{', '.join(show(a) for a in n.items)}]"
    if isinstance(n, ast.MapLit):
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in n.pairs) + "}"
    raise AssertionError(n)


# (text, the tree it reads as or None, where the tree or the error starts, its end or message)
EXAMPLES = [
    ("inputs.urls[0]", "inputs.urls[0]", 0, 14),
    ("a ? b : c ? d : e", "(a ? b : (c ? d : e))", 0, 17),
    ("(a ? b : c) ? d : e", "((a ? b : c) ? d : e)", 0, 19),
    ("1 + 2 * 3 - 4 / 5 % 6", "((1 + (2 * 3)) - ((4 / 5) % 6))", 0, 21),
    ("!a && -b || c == d != e", "(((!a) && (-b)) || ((c == d) != e))", 0, 23),
    ("a < b <= c > d >= e in f", "(((((a < b) <= c) > d) >= e) in f)", 0, 24),
    (
        "f(1, 'x', \"y\\n\", [1, 2], {a: 1, 'b c': [true, false, null]})",
        "f(1, 'x', 'y\\n', [1, 2], {'a': 1, 'b c': [True, False, None]})",
        0,
        60,
    ),
    (
        "filter(steps.pages.items, p, p.price < inputs.max)",
        "filter(steps.pages.items, p, (p.price < inputs.max))",
        0,
        50,
    ),
    ("sortBy(x, y, y.k, 'desc')[0].name", "sortBy(x, y, y.k, 'desc')[0].name", 0, 33),
    ("(a) + (b)", "(a + b)", 0, 9),
    ("!(a)", "(!a)", 0, 4),
    ("-(-(1))", "(-(-1))", 0, 7),
    ("a.b.c[d][e.f]", "a.b.c[d][e.f]", 0, 13),
    ("{}", "{}", 0, 2),
    ("[]", "[]", 0, 2),
    ("f()", "f()", 0, 3),
    ("1.5e3 + 2E-2", "(1500.0 + 0.02)", 0, 12),
    ("truex || inputs || nullable", "((truex || inputs) || nullable)", 0, 27),
    ("x.in + x.true", "(x.in + x.true)", 0, 13),
    ("{null: 1, in: 2}", "{'null': 1, 'in': 2}", 0, 16),
    ("a..b", None, 2, "unexpected '.'; expected a name"),
    ("a ? b", None, 5, "unexpected end of expression"),
    ("1 +", None, 3, "unexpected end of expression"),
    ("a @ b", None, 2, "unexpected character '@'"),
    ("a & b", None, 2, "unexpected character '&'; did you mean '&&'?"),
    ("f(1,)", None, 4, "unexpected ')'; expected a value"),
    ("[1, 2", None, 5, "unexpected end of expression"),
    ("{a 1}", None, 3, "unexpected '1'; expected ':'"),
    ("{1: 2}", None, 1, "unexpected '1'; expected '}', a name or a string"),
    ("a b", None, 2, "unexpected 'b'; expected an operator or the end of the expression"),
    ("(a", None, 2, "unexpected end of expression"),
    ("a)", None, 1, "unexpected ')'; expected the end of the expression"),
    ("a.1", None, 2, "unexpected '1'; expected a name"),
    ("'unterminated", None, 0, 'unexpected character "\'"; a string is not closed'),
    ("a = b", None, 2, "unexpected character '='; did you mean '=='?"),
]


@pytest.mark.parametrize(("text", "tree", "start", "end_or_message"), EXAMPLES)
def test_examples_read_as_expected(
    text: str, tree: str | None, start: int, end_or_message: int | str
) -> None:
    if tree is None:
        with pytest.raises(ExpressionError) as caught:
            parse_expression(text)
        assert (caught.value.message, caught.value.start) == (end_or_message, start)
    else:
        node = parse_expression(text)
        assert (show(node), node.start, node.end) == (tree, start, end_or_message)


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
    "in",
    "0",
    "2.5",
    "'s'",
    '"t"',
    " ",
]


def test_in_is_a_keyword_everywhere() -> None:
    """`a inputs` is no `a in puts`, and a lone `in` no name: both are mistakes; after a dot and
    as a map's key a keyword is a name."""
    with pytest.raises(ExpressionError, match="unexpected 'inputs'"):
        parse_expression("a inputs")
    with pytest.raises(ExpressionError, match="unexpected 'in'"):
        parse_expression("in")
    assert parse_expression("'a' in inputs.names").op == "in"  # type: ignore[attr-defined]
    assert show(parse_expression("x.in")) == "x.in"


def test_other_languages_operators_get_a_suggestion() -> None:
    for text, meant in (("a and b", "&&"), ("a or b", "||"), ("a = 1", "=="), ("a | b", "||")):
        with pytest.raises(ExpressionError, match=f"did you mean '{meant}'"):
            parse_expression(text)


def test_deep_nesting_is_refused_before_the_tree_is_walked() -> None:
    """lark builds its tree without recursion; the AST is built only within MAX_DEPTH, and
    parentheses, which leave no node, are bounded as deep (`(` inside a string is text)."""
    assert parse_expression("'" + "(" * 100 + "' + " + "(" * 64 + "1" + ")" * 64)
    for text in (
        "(" * 65 + "1" + ")" * 65,
        "[" * 2000 + "]" * 2000,
        "-" * 4000 + "1",
        "1+" * 2000 + "1",
        "f(" * 1300 + ")" * 1300,
    ):
        with pytest.raises(ExpressionError, match="nests deeper than 64 levels"):
            parse_expression(text)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=14))
def test_random_texts_parse_or_are_refused_at_a_place_in_them(pieces: list[str]) -> None:
    text = " ".join(pieces)
    try:
        node = parse_expression(text)
    except ExpressionError as exc:
        assert 0 <= exc.start <= len(text) < exc.end or exc.end <= len(text), text
        return
    assert 0 <= node.start < node.end <= len(text), text
    stack = [node]
    while stack:  # every node lies within its parent
        parent = stack.pop()
        for child in ast._children(parent):
            assert parent.start <= child.start < child.end <= parent.end, text
            stack.append(child)
