"""Template values compiled once: constants, `${{ }}` expressions and interpolated strings.

A scalar that is exactly one expression keeps the value's type; otherwise parts are joined as text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from typing import Any

from taskplate.contract import lazy_dataclass

from ._yaml import escape_pointer
from .expr import Budget, ExpressionError, Node, check_size, evaluate, parse_expression, to_text

OPEN, CLOSE = "${{", "}}"


@lazy_dataclass(frozen=True)
class Expr:
    """One `${{ }}` expression: its text, AST and where it stands (pointer, offset in the scalar)."""

    source: str
    node: Node
    pointer: str
    offset: int

    def evaluate(self, scope: Mapping[str, Any], budget: Budget | None = None) -> Any:
        try:
            return evaluate(self.node, scope, budget)
        except ExpressionError as error:
            if error.source is None:  # the innermost expression names the place
                lead = len(self.source) - len(self.source.lstrip())
                error.source = self.source.strip()
                error.start, error.end = error.start - lead, error.end - lead
            raise


@lazy_dataclass(frozen=True)
class BadExpr:
    """An expression that did not parse; kept so that checks can go on without cascading."""

    message: str
    pointer: str
    start: int
    end: int


@lazy_dataclass(frozen=True)
class Unparsed:
    """A value whose expression did not parse: unknown to the checks, an error when rendered."""

    error: BadExpr


@lazy_dataclass(frozen=True)
class Const:
    """A value without expressions."""

    value: Any


@lazy_dataclass(frozen=True)
class Single:
    """A scalar that is exactly one expression: the value keeps its type."""

    expr: Expr


@lazy_dataclass(frozen=True)
class Interp:
    """Text with expressions inside, joined as text."""

    parts: tuple[str | Expr, ...]


@lazy_dataclass(frozen=True)
class ListValue:
    """A list holding expressions."""

    items: tuple[Value, ...]


@lazy_dataclass(frozen=True)
class MapValue:
    """A map holding expressions."""

    entries: tuple[tuple[str, Value], ...]


Value = Const | Single | Interp | ListValue | MapValue | Unparsed


_PLAIN = re.compile(r"\$\{\{([^'\"{}\[\]()]*?)\}\}")


@functools.lru_cache(maxsize=4096)
def _split(text: str) -> tuple[tuple[int, int], ...] | ExpressionError:
    """(start, end) of each expression body; brackets and quotes may contain braces.

    Cached by the text alone: the answer depends on nothing else, and is never mutated.
    """
    plain = _PLAIN.fullmatch(text.strip())
    if plain is not None and OPEN not in plain.group(1):  # the common case, without a scan
        offset = len(text) - len(text.lstrip())
        return ((offset + plain.start(1), offset + plain.end(1)),)
    spans: list[tuple[int, int]] = []
    i = 0
    while (begin := text.find(OPEN, i)) >= 0:
        j, depth, quote = begin + len(OPEN), 0, ""
        while j < len(text):
            ch = text[j]
            if quote:
                j += 2 if ch == "\\" else 1
                quote = "" if ch == quote else quote
                continue
            if depth == 0 and text.startswith(CLOSE, j):
                break
            if ch in "'\"":
                quote = ch
            elif ch in "{[(":
                depth += 1
            elif ch in "}])":
                depth -= 1
            j += 1
        else:
            # Unbalanced brackets: end at the first "}}" so that the parser names the real problem.
            j = text.find(CLOSE, begin + len(OPEN))
            if j < 0:
                return ExpressionError('expression is missing its closing "}}"', begin, len(text))
        spans.append((begin + len(OPEN), j))
        i = j + len(CLOSE)
    return tuple(spans)


# The text inside `${{ }}` one template may hold in all (the shipped ones hold at most 1.3 KB):
# parsing costs about 10 µs a token, so this bounds a template's check (issue #28).
MAX_EXPRESSION_TEXT = 32_768


@lazy_dataclass
class ExpressionBudget:
    """What is left of MAX_EXPRESSION_TEXT while one template compiles."""

    left: int = MAX_EXPRESSION_TEXT


def compile_value(
    raw: Any, pointer: str, errors: list[BadExpr], budget: ExpressionBudget | None = None
) -> Value:
    """Compile a YAML value; problems are appended to `errors` and compile to `Unparsed`.
    With a budget, expressions past it compile to `Unparsed` (the first one reported)."""
    if isinstance(raw, str):
        if OPEN not in raw:
            return Const(raw)
    elif isinstance(raw, dict):
        return MapValue(
            tuple(
                [
                    (k, compile_value(v, f"{pointer}/{escape_pointer(k)}", errors, budget))
                    for k, v in raw.items()
                ]
            )
        )
    elif isinstance(raw, list):
        return ListValue(
            tuple([compile_value(v, f"{pointer}/{i}", errors, budget) for i, v in enumerate(raw)])
        )
    else:
        return Const(raw)
    spans = _split(raw)
    if isinstance(spans, ExpressionError):
        bad = BadExpr(spans.message, pointer, spans.start, spans.end)
        errors.append(bad)
        return Unparsed(bad)
    parts: list[str | Expr] = []
    cursor, failed = 0, None
    for start, end in spans:
        if start - len(OPEN) > cursor:
            parts.append(raw[cursor : start - len(OPEN)])
        body = raw[start:end]
        if budget is not None:
            budget.left -= len(body)
            if budget.left < 0:
                failed = failed or BadExpr(
                    f"the template's expressions hold more than {MAX_EXPRESSION_TEXT} "
                    "characters in all; move data into inputs or split the template",
                    pointer,
                    start,
                    end,
                )
                if budget.left + len(body) >= 0:  # reported once, where the budget ran out
                    errors.append(failed)
                cursor = end + len(CLOSE)
                continue
        try:
            parts.append(Expr(body, parse_expression(body), pointer, start))
        except ExpressionError as exc:
            failed = failed or BadExpr(exc.message, pointer, start + exc.start, start + exc.end)
            errors.append(failed)
        cursor = end + len(CLOSE)
    if cursor < len(raw):
        parts.append(raw[cursor:])
    if failed:
        return Unparsed(failed)
    start, end = spans[0]
    exprs = [p for p in parts if isinstance(p, Expr)]
    if len(spans) == 1 and raw.strip() == raw[start - len(OPEN) : end + len(CLOSE)]:
        return Single(exprs[0])
    return Interp(tuple(parts))


def render(value: Value, scope: Mapping[str, Any], budget: Budget | None = None) -> Any:
    """The value with every expression evaluated; raises ExpressionError on the first problem.
    Its expressions share one budget: together they hold the event loop briefly."""
    budget = budget or Budget()
    match value:
        case Const(value=v):
            return v
        case Single(expr=expr):
            return expr.evaluate(scope, budget)
        case Interp(parts=parts):
            text = "".join(
                p if isinstance(p, str) else to_text(p.evaluate(scope, budget)) for p in parts
            )
            return check_size(text)
        case ListValue(items=items):
            return [render(i, scope, budget) for i in items]
        case MapValue(entries=entries):
            return {k: render(v, scope, budget) for k, v in entries}
        case Unparsed(error=error):
            raise ExpressionError(error.message, error.start, error.end)
    raise TypeError(value)


def expressions(value: Value) -> Iterator[Expr]:
    match value:
        case Single(expr=expr):
            yield expr
        case Interp(parts=parts):
            yield from (p for p in parts if isinstance(p, Expr))
        case ListValue(items=items):
            for item in items:
                yield from expressions(item)
        case MapValue(entries=entries):
            for _, item in entries:
                yield from expressions(item)


def literal(value: Value) -> Any:
    """The plain value of a compiled value whose expressions are replaced by a marker."""
    match value:
        case Const(value=v):
            return v
        case ListValue(items=items):
            return [literal(i) for i in items]
        case MapValue(entries=entries):
            return {k: literal(v) for k, v in entries}
    return DYNAMIC


class _Dynamic:
    def __repr__(self) -> str:
        return "DYNAMIC"


DYNAMIC = _Dynamic()
