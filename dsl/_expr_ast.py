"""The expression AST and its parser: `${{ }}` text to small immutable nodes with positions.

Parsing only; evaluation and typing live beside it. Bounded: depth and length are checked here.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import lark

MAX_DEPTH = 64
MAX_SOURCE = 4096
MAX_MACRO_NESTING = 4
# Functions whose second argument names a variable bound to each item (CEL's macros).
MACROS = frozenset({"filter", "map", "exists", "all", "sortBy"})
RESERVED_NAMES = frozenset({"inputs", "steps", "run", "true", "false", "null"})


class ExpressionError(Exception):
    """A problem with an expression; start/end are offsets into the expression's text."""

    def __init__(self, message: str, start: int = 0, end: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = max(end, start + 1)


@dataclass(frozen=True)
class Node:
    start: int
    end: int


@dataclass(frozen=True)
class Lit(Node):
    value: Any


@dataclass(frozen=True)
class Name(Node):
    name: str


@dataclass(frozen=True)
class Attr(Node):
    obj: Node
    name: str


@dataclass(frozen=True)
class Index(Node):
    obj: Node
    key: Node


@dataclass(frozen=True)
class Unary(Node):
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Cond(Node):
    test: Node
    then: Node
    other: Node


@dataclass(frozen=True)
class Call(Node):
    func: str
    args: tuple[Node, ...]
    name_end: int


@dataclass(frozen=True)
class Macro(Node):
    """`filter(list, x, predicate)` and its kin: `body` is evaluated once per item, as `var`."""

    func: str
    target: Node
    var: str
    body: Node
    extra: tuple[Node, ...]
    name_end: int


@dataclass(frozen=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class MapLit(Node):
    pairs: tuple[tuple[str, Node], ...]


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

_PARSER = lark.Lark(
    (files(__package__ or "taskplate.dsl") / "expr.lark").read_text(encoding="utf-8"),
    parser="lalr",
    propagate_positions=True,
    maybe_placeholders=False,
    cache=True,  # the compiled LALR tables, keyed by grammar hash, in the temp dir
)


def _decode_string(token: str) -> str:
    """'…' keeps backslashes (regex-friendly) but for \\' and \\\\; "…" takes JSON escapes."""
    body = token[1:-1]
    if token[0] == "'":
        return _SINGLE_ESCAPE.sub(lambda m: m.group(0)[1], body)
    try:
        value = json.loads(f'"{body}"')
    except json.JSONDecodeError:
        raise ExpressionError(f"invalid escape in string literal {token}") from None
    assert isinstance(value, str)
    return value


_SINGLE_ESCAPE = re.compile(r"\\['\\]")


def _number(token: str) -> int | float:
    return float(token) if any(c in token for c in ".eE") else int(token)


def _depth(tree: lark.Tree[Any]) -> int:
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, lark.Tree))
    return deepest


def _pos(item: lark.Tree[Any] | lark.Token) -> tuple[int, int]:
    if isinstance(item, lark.Token):
        return item.start_pos or 0, item.end_pos or 0
    meta = item.meta
    return getattr(meta, "start_pos", 0), getattr(meta, "end_pos", 0)


def _convert(item: lark.Tree[Any] | lark.Token) -> Node:
    start, end = _pos(item)
    if isinstance(item, lark.Token):
        raise ExpressionError(f"unexpected {item!r}", start, end)
    kind, ch = item.data, item.children
    if kind == "number":
        return Lit(start, end, _number(str(ch[0])))
    if kind == "string":
        try:
            return Lit(start, end, _decode_string(str(ch[0])))
        except ExpressionError as exc:
            raise ExpressionError(exc.message, start, end) from None
    if kind in ("true", "false", "null"):
        return Lit(start, end, {"true": True, "false": False, "null": None}[kind])
    if kind == "name":
        return Name(start, end, str(ch[0]))
    if kind == "attr":
        return Attr(start, end, _convert(ch[0]), str(ch[1]))
    if kind == "index":
        return Index(start, end, _convert(ch[0]), _convert(ch[1]))
    if kind in ("not_", "neg"):
        return Unary(start, end, "!" if kind == "not_" else "-", _convert(ch[0]))
    if kind in _BINARY:
        return Binary(start, end, _BINARY[kind], _convert(ch[0]), _convert(ch[1]))
    if kind == "cond":
        return Cond(start, end, _convert(ch[0]), _convert(ch[1]), _convert(ch[2]))
    if kind == "call":
        name = ch[0]
        args = tuple(_convert(c) for c in ch[1:])
        if str(name) in MACROS:
            return _macro(start, end, str(name), args, _pos(name)[1])
        return Call(start, end, str(name), args, _pos(name)[1])
    if kind == "list":
        return ListLit(start, end, tuple(_convert(c) for c in ch))
    if kind == "map":
        pairs = []
        for pair in ch:
            key_token = pair.children[0]
            key = str(key_token)
            if isinstance(key_token, lark.Token) and key_token.type == "STRING":
                key = _decode_string(key)
            pairs.append((key, _convert(pair.children[1])))
        return MapLit(start, end, tuple(pairs))
    raise ExpressionError(f"unsupported expression {kind}", start, end)


def _macro(start: int, end: int, func: str, args: tuple[Node, ...], name_end: int) -> Macro:
    most = 4 if func == "sortBy" else 3
    if not 3 <= len(args) <= most:
        want = "3 or 4 arguments" if most == 4 else "3 arguments"
        raise ExpressionError(
            f"{func}() takes {want} (list, name, expression), got {len(args)}", start, end
        )
    var = args[1]
    if not isinstance(var, Name):
        raise ExpressionError(
            f"{func}() needs a variable name as its second argument, such as {func}(list, x, …)",
            var.start,
            var.end,
        )
    if var.name in RESERVED_NAMES:
        raise ExpressionError(
            f'"{var.name}" cannot name the item of {func}(); choose another name',
            var.start,
            var.end,
        )
    return Macro(start, end, func, args[0], var.name, args[2], args[3:], name_end)


def _macro_nesting(node: Node) -> int:
    """How many macros nest inside one another (each one multiplies the items visited)."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, Macro):
            depth += 1
            deepest = max(deepest, depth)
        for child in vars(current).values():
            kids = child if isinstance(child, tuple) else (child,)
            for kid in kids:
                if isinstance(kid, Node):
                    stack.append((kid, depth))
                elif isinstance(kid, tuple):  # map pairs
                    stack.extend((v, depth) for v in kid if isinstance(v, Node))
    return deepest


def _describe_unexpected(exc: lark.exceptions.UnexpectedInput, text: str) -> ExpressionError:
    pos = getattr(exc, "pos_in_stream", None) or 0
    if isinstance(exc, lark.exceptions.UnexpectedToken):
        token = exc.token
        if token.type == "$END":
            return ExpressionError("unexpected end of expression", len(text), len(text) + 1)
        expected = sorted(_pretty_expected(exc.expected))
        hint = f"; expected {', '.join(expected[:6])}" if expected else ""
        return ExpressionError(
            f"unexpected {str(token)!r}{hint}",
            token.start_pos or 0,
            token.end_pos or (token.start_pos or 0) + 1,
        )
    if isinstance(exc, lark.exceptions.UnexpectedCharacters):
        at = exc.pos_in_stream or 0
        char = text[at] if at < len(text) else "?"
        return ExpressionError(f"unexpected character {char!r}", at)
    return ExpressionError("invalid expression", pos)


_TERMINAL_TEXT = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "RPAR": "')'",
    "RSQB": "']'",
    "RBRACE": "'}'",
    "COLON": "':'",
    "COMMA": "','",
    "LPAR": "'('",
    "LSQB": "'['",
    "LBRACE": "'{'",
}


def _pretty_expected(names: set[str]) -> set[str]:
    return {_TERMINAL_TEXT[n] for n in names if n in _TERMINAL_TEXT}


@functools.lru_cache(maxsize=4096)
def parse_expression(text: str) -> Node:
    """Parse the text between `${{` and `}}`; raises ExpressionError with offsets."""
    if len(text) > MAX_SOURCE:
        raise ExpressionError(f"expression is longer than {MAX_SOURCE} characters", 0, len(text))
    if not text.strip():
        raise ExpressionError("empty expression", 0, len(text))
    try:
        tree = _PARSER.parse(text)
    except lark.exceptions.UnexpectedInput as exc:
        raise _describe_unexpected(exc, text) from None
    if isinstance(tree, lark.Token):
        tree = lark.Tree("name" if tree.type == "NAME" else "number", [tree])
    if _depth(tree) > MAX_DEPTH:
        raise ExpressionError(f"expression nests deeper than {MAX_DEPTH} levels", 0, len(text))
    node = _convert(tree)
    if _macro_nesting(node) > MAX_MACRO_NESTING:
        raise ExpressionError(
            f"list operations nest deeper than {MAX_MACRO_NESTING} levels", 0, len(text)
        )
    return node
