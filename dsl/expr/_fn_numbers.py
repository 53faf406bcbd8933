"""Number functions of the expression language: smallest, largest, rounding, and numbers read
from text (_numbers.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .._numbers import NumberFormatError, parse_number
from ._ast import MAX_INTEGER
from ._function import Function, FunctionError, is_number, type_name, want


def _extreme(name: str, pick: Callable[..., Any]) -> Callable[..., Any]:
    def fn(*args: Any) -> Any:
        values = args[0] if len(args) == 1 and isinstance(args[0], list) else list(args)
        if not values:
            return None
        for v in values:
            if not is_number(v):
                raise FunctionError(f"{name}() works on numbers, got {type_name(v)}")
        return pick(values)

    return fn


MAX_ROUND_DIGITS = 308  # a double's range; round(1, -N) would compute 10**N
MAX_NUMBER_TEXT = 256  # characters toNumber() reads (it reads them one by one)


def _round(x: Any, digits: Any = 0) -> int | float:
    want("round", 1, x, "number")
    want("round", 2, digits, "number")
    if not (isinstance(digits, int) or digits.is_integer()) or abs(digits) > MAX_ROUND_DIGITS:
        raise FunctionError(
            f"round() digits must be a whole number from -{MAX_ROUND_DIGITS} to "
            f"{MAX_ROUND_DIGITS}, got {digits!r:.24}"
        )
    if not math.isfinite(x):
        return float(x)
    out = round(x, int(digits))
    return int(out) if int(digits) <= 0 else out


def _to_number(text: Any, locale: Any = None) -> int | float | None:
    want("toNumber", 1, text, "string", "number", "null")
    if locale is not None:
        want("toNumber", 2, locale, "string")
    if is_number(text):
        return text  # type: ignore[no-any-return]
    if text is None:
        return None
    if len(text) > MAX_NUMBER_TEXT:
        raise FunctionError(
            f"toNumber() reads texts of at most {MAX_NUMBER_TEXT} characters, got {len(text)}"
        )
    try:
        value = parse_number(text, locale)
    except NumberFormatError as exc:
        raise FunctionError(f"toNumber() {exc}") from None
    if value is not None and (
        (isinstance(value, float) and not math.isfinite(value)) or abs(value) > MAX_INTEGER
    ):
        raise FunctionError(f"toNumber() number is out of range (past 1.8e308): {text:.24}")
    return value


NUMBERS: list[Function] = [
    Function(
        "min",
        _extreme("min", min),
        1,
        None,
        "number",
        "Smallest number (of a list or of the arguments).",
    ),
    Function(
        "max",
        _extreme("max", max),
        1,
        None,
        "number",
        "Largest number (of a list or of the arguments).",
    ),
    Function("round", _round, 1, 2, "number", "A number rounded to some digits (default 0)."),
    Function(
        "toNumber",
        _to_number,
        1,
        2,
        "number",
        "The number written in a text: currency signs and codes, spaces and thousands "
        "separators are dropped (`'$1,299.00'` → 1299.0). With a locale (`'de'`, `'fr-CH'`) its "
        "decimal mark is used (`toNumber('1.234,5', 'de')` → 1234.5); without one, the last "
        "of `.` `,` is the decimal mark and a lone `,` before three digits groups thousands. "
        "null when the text holds no number.",
        "toNumber(text, locale?)",
    ),
]
