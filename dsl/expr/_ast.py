"""The expression AST: small immutable nodes with positions, built by _expr_syntax.py.

Nodes and their bounds only; parsing, evaluation and typing live beside it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from taskplate.contract import lazy_dataclass

MAX_DEPTH = 64
MAX_SOURCE = 4096
MAX_MACRO_NESTING = 4
MAX_INTEGER = 2**1024  # past it a number is no double: JSON readers would take it as infinite
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
        self.source: str | None = None  # the expression's text, once known (`Expr.evaluate`)

    def where(self) -> str:
        """The place in the expression, for a message: its text with the failing part marked."""
        if self.source is None:
            return ""
        part = self.source[self.start : self.end]
        return f" (at `{part}`, characters {self.start}-{self.end} of `${{{{ {self.source} }}}}`)"


@lazy_dataclass(frozen=True)
class Node:
    """A node of the expression's tree; start and end are offsets into its text."""

    start: int
    end: int


@lazy_dataclass(frozen=True)
class Lit(Node):
    """A literal: number, string, true, false or null."""

    value: Any


@lazy_dataclass(frozen=True)
class Name(Node):
    """A name: `inputs`, `steps`, `run` or a list operation's item."""

    name: str


@lazy_dataclass(frozen=True)
class Attr(Node):
    """`obj.name`."""

    obj: Node
    name: str


@lazy_dataclass(frozen=True)
class Index(Node):
    """`obj[key]`."""

    obj: Node
    key: Node


@lazy_dataclass(frozen=True)
class Unary(Node):
    """`!operand` or `-operand`."""

    op: str
    operand: Node


@lazy_dataclass(frozen=True)
class Binary(Node):
    """`left op right`."""

    op: str
    left: Node
    right: Node


@lazy_dataclass(frozen=True)
class Cond(Node):
    """`test ? then : other`."""

    test: Node
    then: Node
    other: Node


@lazy_dataclass(frozen=True)
class Call(Node):
    """A function call; `name_end` ends the function's name."""

    func: str
    args: tuple[Node, ...]
    name_end: int


@lazy_dataclass(frozen=True)
class Macro(Node):
    """`filter(list, x, predicate)` and its kin: `body` is evaluated once per item, as `var`."""

    func: str
    target: Node
    var: str
    body: Node
    extra: tuple[Node, ...]
    name_end: int


@lazy_dataclass(frozen=True)
class ListLit(Node):
    """`[items]`."""

    items: tuple[Node, ...]


@lazy_dataclass(frozen=True)
class MapLit(Node):
    """`{key: value, …}`."""

    pairs: tuple[tuple[str, Node], ...]


def decode_string(token: str, start: int) -> str:
    """'…' keeps backslashes (regex-friendly) but for \\' and \\\\; "…" takes JSON escapes."""
    body = token[1:-1]
    if token[0] == "'":
        return _SINGLE_ESCAPE.sub(lambda m: m.group(0)[1], body)
    try:
        value = json.loads(f'"{body}"')
    except json.JSONDecodeError:
        raise ExpressionError(
            f"invalid escape in string literal {token}", start, start + len(token)
        ) from None
    assert isinstance(value, str)
    return value


_SINGLE_ESCAPE = re.compile(r"\\['\\]")


def number(token: str) -> int | float:
    return float(token) if any(c in token for c in ".eE") else int(token)


def _children(node: Node) -> list[Node]:
    out: list[Node] = []
    for child in vars(node).values():
        for kid in child if isinstance(child, tuple) else (child,):
            if isinstance(kid, Node):
                out.append(kid)
            elif isinstance(kid, tuple):
                out.extend(v for v in kid if isinstance(v, Node))
    return out


def macro(start: int, end: int, func: str, args: tuple[Node, ...], name_end: int) -> Macro:
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


def macro_nesting(node: Node) -> int:
    """How many macros nest inside one another (each one multiplies the items visited)."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, Macro):
            depth += 1
            deepest = max(deepest, depth)
        stack.extend((kid, depth) for kid in _children(current))
    return deepest
