"""Evaluates expression ASTs against a scope of plain JSON values: pure and bounded.

Only dict keys and list items are reachable: never a Python attribute, file or environment.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from taskplate.contract import field, lazy_dataclass

from ._ast import (
    MAX_INTEGER,
    Attr,
    Binary,
    Call,
    Cond,
    ExpressionError,
    Index,
    ListLit,
    Lit,
    Macro,
    MapLit,
    Name,
    Node,
    Unary,
)
from ._fn_text import REGEX_TIME_S, regex_time_left
from ._functions import FUNCTIONS, FunctionError, check_size, is_number, type_name

MAX_OPERATIONS = 50_000  # nodes evaluated, and items functions and operators go through
MAX_CHARACTERS = 8 * 1024 * 1024  # characters functions and operators read and write
MAX_ITEMS_VISITED = 25_000  # items visited by list operations in one evaluation


def truthy(value: Any) -> bool:
    """null, false, 0, "" and empty lists and maps are false; everything else is true."""
    if value is None or value is False:
        return False
    if is_number(value):
        return bool(value)
    if isinstance(value, str | list | dict):
        return len(value) > 0
    return True


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if type_name(a) != type_name(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)


@lazy_dataclass
class Budget:
    """What evaluations have spent: one per expression, or one for all the values of a step, so
    that what they hold the event loop for is bounded together."""

    operations: int = 0
    characters: int = 0
    visited: int = 0
    regex_time_left: list[float] = field(default_factory=lambda: [REGEX_TIME_S])


class _Evaluator:
    def __init__(self, scope: Mapping[str, Any], budget: Budget) -> None:
        self.scope = scope
        self.budget = budget

    def fail(self, node: Node, message: str) -> ExpressionError:
        return ExpressionError(message, node.start, node.end)

    def eval(self, node: Node) -> Any:
        self.budget.operations += 1
        if self.budget.operations > MAX_OPERATIONS:
            raise self.fail(node, f"expression needs more than {MAX_OPERATIONS} operations")
        match node:
            case Lit(value=value):
                return value
            case Name(name=name):
                if name not in self.scope:
                    raise self.fail(node, f'unknown name "{name}"')
                return self.scope[name]
            case Attr(obj=obj, name=name):
                return self._member(node, self.eval(obj), name)
            case Index(obj=obj, key=key):
                return self._member(node, self.eval(obj), self.eval(key))
            case Unary(op="!", operand=operand):
                return not truthy(self.eval(operand))
            case Unary(op="-", operand=operand):
                value = self.eval(operand)
                if not is_number(value):
                    raise self.fail(node, f"cannot negate {type_name(value)}")
                return -value
            case Binary(op="&&", left=left, right=right):
                value = self.eval(left)
                return self.eval(right) if truthy(value) else value
            case Binary(op="||", left=left, right=right):
                value = self.eval(left)
                return value if truthy(value) else self.eval(right)
            case Binary(op=op, left=left, right=right):
                return self._binary(node, op, self.eval(left), self.eval(right))
            case Cond(test=test, then=then, other=other):
                return self.eval(then) if truthy(self.eval(test)) else self.eval(other)
            case Call(func=func, args=args):
                return self._call(node, func, [self.eval(a) for a in args])
            case Macro():
                return self._macro(node)
            case ListLit(items=items):
                return check_size([self.eval(i) for i in items])
            case MapLit(pairs=pairs):
                return {k: self.eval(v) for k, v in pairs}
        raise self.fail(node, "unsupported expression")

    def _spend(self, node: Node, *values: Any) -> None:
        """Charges the budget for values a function or operator goes through: a list's or map's
        items as operations, a text's characters (each bounds the evaluation's time)."""
        for value in values:
            if isinstance(value, str):
                self.budget.characters += len(value)
            elif isinstance(value, list | dict):
                self.budget.operations += len(value)
        if self.budget.operations > MAX_OPERATIONS:
            raise self.fail(node, f"expression needs more than {MAX_OPERATIONS} operations")
        if self.budget.characters > MAX_CHARACTERS:
            raise self.fail(
                node, f"expression reads and writes more than {MAX_CHARACTERS} characters"
            )

    def _member(self, node: Node, container: Any, key: Any) -> Any:
        if container is None:
            return None
        if isinstance(container, dict):
            if not isinstance(key, str):
                raise self.fail(node, f"map keys are strings, got {type_name(key)}")
            return container.get(key)
        if isinstance(container, list):
            if not is_number(key) or (isinstance(key, float) and not key.is_integer()):
                raise self.fail(node, f"list index must be a whole number, got {type_name(key)}")
            i = int(key)
            return container[i] if -len(container) <= i < len(container) else None
        raise self.fail(node, f"cannot read {key!r} of {type_name(container)}")

    def _binary(self, node: Node, op: str, a: Any, b: Any) -> Any:
        if not (is_number(a) and is_number(b)):  # numbers cost their node alone
            self._spend(node, a, b)
        if op == "==":
            return _equal(a, b)
        if op == "!=":
            return not _equal(a, b)
        if op == "in":
            if isinstance(b, str) and isinstance(a, str):
                return a in b
            if isinstance(b, list):
                return any(_equal(a, item) for item in b)
            if isinstance(b, dict) and isinstance(a, str):
                return a in b
            raise self.fail(node, f"cannot test {type_name(a)} in {type_name(b)}")
        if op == "+":
            if is_number(a) and is_number(b):
                return self._arithmetic(node, op, a, b)
            if isinstance(a, str) and isinstance(b, str):
                return self._sized(node, a + b)
            if isinstance(a, list) and isinstance(b, list):
                return self._sized(node, a + b)
            raise self.fail(node, f"cannot add {type_name(a)} and {type_name(b)}")
        if op in ("<", "<=", ">", ">="):
            comparable = (is_number(a) and is_number(b)) or (
                isinstance(a, str) and isinstance(b, str)
            )
            if not comparable:
                raise self.fail(node, f"cannot compare {type_name(a)} with {type_name(b)}")
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        if not (is_number(a) and is_number(b)):
            raise self.fail(node, f"'{op}' needs numbers, got {type_name(a)} and {type_name(b)}")
        if op in ("/", "%") and b == 0:
            raise self.fail(node, "division by zero")
        return self._arithmetic(node, op, a, b)

    def _arithmetic(self, node: Node, op: str, a: Any, b: Any) -> Any:
        try:
            result = _arithmetic(op, a, b)
        except (OverflowError, ValueError, ZeroDivisionError):
            result = math.inf  # out of range, as an infinite result is
        if (isinstance(result, float) and not math.isfinite(result)) or (
            isinstance(result, int) and abs(result) > MAX_INTEGER
        ):
            raise self.fail(node, f"'{op}' of {_short(a)} and {_short(b)} is out of range")
        return result

    def _sized(self, node: Node, value: Any) -> Any:
        try:
            return check_size(value)
        except FunctionError as exc:
            raise self.fail(node, str(exc)) from None

    def _macro(self, node: Macro) -> Any:
        items = self.eval(node.target)
        if not isinstance(items, list):
            raise self.fail(node.target, f"{node.func}() needs a list, got {type_name(items)}")
        descending = False
        if node.extra:
            order = self.eval(node.extra[0])
            if order not in ("asc", "desc"):
                raise self.fail(
                    node.extra[0], f"sortBy() order must be 'asc' or 'desc', got {order!r}"
                )
            descending = order == "desc"
        outer = self.scope
        results = []
        try:
            for item in items:
                self.budget.visited += 1
                if self.budget.visited > MAX_ITEMS_VISITED:
                    raise self.fail(
                        node, f"list operations visit more than {MAX_ITEMS_VISITED} items"
                    )
                self.scope = {**outer, node.var: item}
                value = self.eval(node.body)
                if node.func == "exists" and truthy(value):
                    return True
                if node.func == "all" and not truthy(value):
                    return False
                results.append(value)
        finally:
            self.scope = outer
        if node.func == "exists":
            return False
        if node.func == "all":
            return True
        if node.func == "filter":
            return [item for item, keep in zip(items, results, strict=True) if truthy(keep)]
        if node.func == "map":
            return results
        return self._sorted(node, items, results, descending)

    def _sorted(self, node: Macro, items: list[Any], keys: list[Any], descending: bool) -> Any:
        kinds = {type_name(k) for k in keys if k is not None}
        if len(kinds) > 1 or kinds - {"number", "string"}:
            shown = " and ".join(sorted(kinds))
            raise self.fail(
                node.body, f"sortBy() keys must all be numbers or all texts, got {shown}"
            )
        present = [(k, i) for k, i in zip(keys, items, strict=True) if k is not None]
        absent = [i for k, i in zip(keys, items, strict=True) if k is None]
        present.sort(key=lambda pair: pair[0], reverse=descending)  # sort is stable both ways
        return [i for _, i in present] + absent

    def _call(self, node: Call, func: str, args: list[Any]) -> Any:
        spec = FUNCTIONS.get(func)
        if spec is None:
            raise ExpressionError(f'unknown function "{func}"', node.start, node.name_end)
        if len(args) < spec.min_args or (spec.max_args is not None and len(args) > spec.max_args):
            raise self.fail(
                node, f"{func}() takes {_arity(spec.min_args, spec.max_args)}, got {len(args)}"
            )
        if spec.reads:
            self._spend(node, *args)
        try:
            result = spec.impl(*args)
        except FunctionError as exc:
            raise self.fail(node, str(exc)) from None
        except (RecursionError, MemoryError, OverflowError, ValueError, TypeError) as exc:
            raise self.fail(node, f"{func}() failed: {type(exc).__name__}") from None
        self._spend(node, result)
        return result


def _arithmetic(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        result = a / b
        if result.is_integer() and isinstance(a, int) and isinstance(b, int):
            return int(result)
        return result
    return math.fmod(a, b) if isinstance(a, float) or isinstance(b, float) else a % b


def _short(number: Any) -> str:
    text = repr(number)
    return text if len(text) <= 24 else f"{text[:10]}…({len(text)} digits)"


def _arity(low: int, high: int | None) -> str:
    if high is None:
        return f"at least {low} argument{'s' if low != 1 else ''}"
    if low == high:
        return f"{low} argument{'s' if low != 1 else ''}"
    return f"{low} to {high} arguments"


def evaluate(node: Node, scope: Mapping[str, Any], budget: Budget | None = None) -> Any:
    """Evaluate a parsed expression; raises ExpressionError (with offsets) on any problem.
    A `budget` shared by several evaluations bounds them together (a step's values)."""
    budget = budget or Budget()
    regex_time = regex_time_left.set(budget.regex_time_left)
    try:
        return _Evaluator(scope, budget).eval(node)
    except RecursionError:
        raise ExpressionError("expression nests too deeply", node.start, node.end) from None
    finally:
        regex_time_left.reset(regex_time)


__all__ = ["Budget", "evaluate", "truthy"]
