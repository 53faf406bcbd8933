"""The expression AST: `${{ }}` text to small immutable nodes with positions.

Parsing only; evaluation and typing live beside it. Bounded: depth and length are checked here.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from ._expr_parser import ParseError, Parser

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


def _make(kind: str, start: int, end: int, *parts: Any) -> Node:
    """One AST node from what the parser read (see _expr_parser.Parser)."""
    if kind == "NUMBER":
        return Lit(start, end, _number(parts[0]))
    if kind == "STRING":
        try:
            return Lit(start, end, _decode_string(parts[0]))
        except ExpressionError as exc:
            raise ExpressionError(exc.message, start, end) from None
    if kind in ("true", "false", "null"):
        return Lit(start, end, {"true": True, "false": False, "null": None}[kind])
    if kind == "name":
        return Name(start, end, parts[0])
    if kind == "attr":
        return Attr(start, end, parts[0], parts[1])
    if kind == "index":
        return Index(start, end, parts[0], parts[1])
    if kind == "unary":
        return Unary(start, end, parts[0], parts[1])
    if kind == "binary":
        return Binary(start, end, *parts)
    if kind == "cond":
        return Cond(start, end, *parts)
    if kind == "call":
        name, args = parts[0], tuple(parts[1])
        if name.text in MACROS:
            return _macro(start, end, name.text, args, name.end)
        return Call(start, end, name.text, args, name.end)
    if kind == "list":
        return ListLit(start, end, tuple(parts[0]))
    pairs = []
    for key, value in parts[0]:
        text = _decode_string(key.text) if key.kind == "STRING" else key.text
        pairs.append((text, value))
    return MapLit(start, end, tuple(pairs))


def _children(node: Node) -> list[Node]:
    out: list[Node] = []
    for child in vars(node).values():
        for kid in child if isinstance(child, tuple) else (child,):
            if isinstance(kid, Node):
                out.append(kid)
            elif isinstance(kid, tuple):
                out.extend(v for v in kid if isinstance(v, Node))
    return out


def _depth(node: Node) -> int:
    """Levels of the syntax tree as lark counts them (a map's pair is a level of its own)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        deepest = max(deepest, depth)
        step = 2 if isinstance(current, MapLit) else 1
        stack.extend((kid, depth + step) for kid in _children(current))
    return deepest


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
        stack.extend((kid, depth) for kid in _children(current))
    return deepest


@functools.lru_cache(maxsize=4096)
def parse_expression(text: str) -> Node:
    """Parse the text between `${{` and `}}`; raises ExpressionError with offsets."""
    if len(text) > MAX_SOURCE:
        raise ExpressionError(f"expression is longer than {MAX_SOURCE} characters", 0, len(text))
    if not text.strip():
        raise ExpressionError("empty expression", 0, len(text))
    try:
        node: Node = Parser(text, _make, MAX_DEPTH).parse()
    except ParseError as exc:
        raise ExpressionError(exc.message, exc.start, exc.end) from None
    if _depth(node) > MAX_DEPTH:
        raise ExpressionError(f"expression nests deeper than {MAX_DEPTH} levels", 0, len(text))
    if _macro_nesting(node) > MAX_MACRO_NESTING:
        raise ExpressionError(
            f"list operations nest deeper than {MAX_MACRO_NESTING} levels", 0, len(text)
        )
    return node
