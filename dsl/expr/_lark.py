"""lark's LALR parser of expr.lark reading `${{ }}` text: its tree turned into the AST of
_expr_ast.py, its syntax errors said in the user's words. Imported by _expr_syntax.py only for a
text no earlier process parsed (_expr_saved.py keeps those). No evaluation, no typing here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ._ast import (
    MACROS,
    MAX_DEPTH,
    MAX_INTEGER,
    MAX_MACRO_NESTING,
    Attr,
    Binary,
    Call,
    Cond,
    ExpressionError,
    Index,
    ListLit,
    Lit,
    MapLit,
    Name,
    Node,
    Unary,
    decode_string,
    macro,
    macro_nesting,
    number,
)
from ._grammar import expected_words, lark, parser

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
# What a reader of another language may have meant.
_WORDS_MEANT = {"and": "&&", "or": "||"}
_CHARACTERS_MEANT = {"=": "==", "&": "&&", "|": "||"}


def _binary(op: str) -> Any:
    def build(self: ToAst, meta: Any, children: Sequence[Node]) -> Node:
        return Binary(meta.start_pos, meta.end_pos, op, children[0], children[1])

    return build


@lark.v_args(meta=True)
class ToAst(lark.Transformer[lark.Token, Node]):
    """lark's tree to the AST nodes, with lark's positions (parentheses included)."""

    def number(self, meta: Any, children: Sequence[lark.Token]) -> Node:
        value = number(children[0])
        if (isinstance(value, float) and not math.isfinite(value)) or value > MAX_INTEGER:
            raise ExpressionError(
                f"number {children[0]:.24} is out of range (past 1.8e308)",
                meta.start_pos,
                meta.end_pos,
            )
        return Lit(meta.start_pos, meta.end_pos, value)

    def string(self, meta: Any, children: Sequence[lark.Token]) -> Node:
        return Lit(meta.start_pos, meta.end_pos, decode_string(children[0], meta.start_pos))

    def true(self, meta: Any, children: Sequence[lark.Token]) -> Node:
        return Lit(meta.start_pos, meta.end_pos, True)

    def false(self, meta: Any, children: Sequence[lark.Token]) -> Node:
        return Lit(meta.start_pos, meta.end_pos, False)

    def null(self, meta: Any, children: Sequence[lark.Token]) -> Node:
        return Lit(meta.start_pos, meta.end_pos, None)

    def name(self, meta: Any, children: Sequence[lark.Token]) -> Node:
        return Name(meta.start_pos, meta.end_pos, str(children[0]))

    def attr(self, meta: Any, children: Sequence[Any]) -> Node:
        return Attr(meta.start_pos, meta.end_pos, children[0], str(children[1]))

    def index(self, meta: Any, children: Sequence[Node]) -> Node:
        return Index(meta.start_pos, meta.end_pos, children[0], children[1])

    def not_(self, meta: Any, children: Sequence[Node]) -> Node:
        return Unary(meta.start_pos, meta.end_pos, "!", children[0])

    def neg(self, meta: Any, children: Sequence[Node]) -> Node:
        return Unary(meta.start_pos, meta.end_pos, "-", children[0])

    def cond(self, meta: Any, children: Sequence[Node]) -> Node:
        return Cond(meta.start_pos, meta.end_pos, *children)

    def call(self, meta: Any, children: Sequence[Any]) -> Node:
        name, args = children[0], tuple(children[1:])
        if name in MACROS:
            return macro(meta.start_pos, meta.end_pos, str(name), args, name.end_pos)
        return Call(meta.start_pos, meta.end_pos, str(name), args, name.end_pos)

    def list(self, meta: Any, children: Sequence[Node]) -> Node:
        return ListLit(meta.start_pos, meta.end_pos, tuple(children))

    def pair(self, meta: Any, children: Sequence[Any]) -> tuple[str, Node]:
        key: lark.Token = children[0]
        text = decode_string(key, key.start_pos or 0) if key.type == "STRING" else str(key)
        return text, children[1]

    def map(self, meta: Any, children: Sequence[tuple[str, Node]]) -> Node:
        return MapLit(meta.start_pos, meta.end_pos, tuple(children))


for _rule, _op in _BINARY.items():
    setattr(ToAst, _rule, lark.v_args(meta=True)(_binary(_op)))

_TO_AST = ToAst()


def _depth(tree: lark.Tree[lark.Token]) -> int:
    """Levels of lark's tree, counted without recursion (a map's pair is a level of its own)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((kid, depth + 1) for kid in current.children if isinstance(kid, lark.Tree))
    return deepest


def _paren_depth(text: str) -> int:
    """How deep parentheses nest outside string literals (lark's tree has no node for them)."""
    depth = deepest = 0
    quote, escaped = "", False
    for ch in text:
        if escaped:
            escaped = False
        elif quote:
            escaped = ch == "\\"
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    return deepest


def _unexpected_token(exc: lark.UnexpectedToken, text: str) -> ExpressionError:
    token = exc.token
    if token.type == "$END":
        return ExpressionError("unexpected end of expression", len(text), len(text) + 1)
    start = token.start_pos or 0
    expected = exc.accepts or exc.expected
    message = f"unexpected {str(token)!r}; expected {expected_words(expected)}"
    meant = _WORDS_MEANT.get(str(token)) if token.type == "NAME" else None
    if meant:
        message += f"; did you mean '{meant}'?"
    return ExpressionError(message, start, token.end_pos or start + 1)


def _unexpected_character(exc: lark.UnexpectedCharacters, text: str) -> ExpressionError:
    at = exc.pos_in_stream or 0
    char = text[at]
    message = f"unexpected character {char!r}"
    if char in _CHARACTERS_MEANT:
        message += f"; did you mean '{_CHARACTERS_MEANT[char]}'?"
    elif char in "'\"":
        message += "; a string is not closed"
    return ExpressionError(message, at, at + 1)


def _read(text: str) -> lark.Tree[lark.Token]:
    try:
        return parser().parse(text)
    except lark.UnexpectedToken as exc:
        raise _unexpected_token(exc, text) from None
    except lark.UnexpectedCharacters as exc:
        raise _unexpected_character(exc, text) from None


def read_expression(text: str) -> Node:
    """The AST of a non-empty text of at most MAX_SOURCE characters; raises ExpressionError."""
    tree = _read(text)
    # lark builds its tree without recursion; the transformer recurses, so depth comes first.
    if _depth(tree) > MAX_DEPTH or (text.count("(") > MAX_DEPTH and _paren_depth(text) > MAX_DEPTH):
        raise ExpressionError(f"expression nests deeper than {MAX_DEPTH} levels", 0, len(text))
    try:
        node = _TO_AST.transform(tree)
    except lark.exceptions.VisitError as exc:
        if isinstance(exc.orig_exc, ExpressionError):
            raise exc.orig_exc from None
        raise
    if macro_nesting(node) > MAX_MACRO_NESTING:
        raise ExpressionError(
            f"list operations nest deeper than {MAX_MACRO_NESTING} levels", 0, len(text)
        )
    return node
