"""What an expression function is (`Function`, its `returns` is its type) and what every one
uses: argument checks, result bounds, how a value reads as text. Pure; no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from taskplate.contract import lazy_dataclass

MAX_STRING = 1024 * 1024


MAX_LIST = 100_000


class FunctionError(Exception):
    """Raised by a function; the evaluator adds the position."""


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unsupported value"


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


T = TypeVar("T")


def check_size(value: T) -> T:
    if isinstance(value, str) and len(value) > MAX_STRING:
        raise FunctionError(f"string result longer than {MAX_STRING} characters")
    if isinstance(value, list) and len(value) > MAX_LIST:
        raise FunctionError(f"list result longer than {MAX_LIST} items")
    return value


def want(name: str, position: int, value: Any, *kinds: str) -> None:
    if type_name(value) not in kinds:
        raise FunctionError(
            f"{name}() argument {position} must be {' or '.join(kinds)}, got {type_name(value)}"
        )


def to_text(value: Any) -> str:
    """How a value reads inside a string: strings as-is, null empty, the rest as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)  # as JSON writes it, faster
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@lazy_dataclass(frozen=True)
class Function:
    """An expression function: its implementation, arity, and `returns`, its type."""

    name: str
    impl: Callable[..., Any]
    min_args: int
    max_args: int | None  # None: any number
    returns: str  # a type name, or "any", or "arg0" (the first argument's type)
    summary: str
    signature: str = ""  # how a call reads, for docs and editors: "filter(list, x, predicate)"
    macro: bool = False  # the second argument names each item; see _expr_ast.MACROS
    reads: bool = True  # goes through its arguments' items and characters (the budget counts them)
