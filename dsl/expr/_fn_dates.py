"""Date functions of the expression language: the time now, dates read from and written as text
(_dates.py).
"""

from __future__ import annotations

from typing import Any

from .._dates import DateError, format_date, now_iso, parse_date
from ._function import Function, FunctionError, want

MAX_DATE_TEXT = 256  # characters of a date or a date pattern (a pattern compiles to a regex)


def _bounded(name: str, text: str) -> str:
    if len(text) > MAX_DATE_TEXT:
        raise FunctionError(
            f"{name}() reads dates and patterns of at most {MAX_DATE_TEXT} characters, "
            f"got {len(text)}"
        )
    return text


def _now() -> str:
    return now_iso()


def _parse_date(text: Any, pattern: Any = None) -> str | None:
    want("parseDate", 1, text, "string", "null")
    if pattern is not None:
        want("parseDate", 2, pattern, "string")
    if text is None:
        return None
    for value in (text, pattern or ""):
        _bounded("parseDate", value)
    try:
        return parse_date(text, pattern)
    except DateError as exc:
        raise FunctionError(f"parseDate() {exc}") from None


def _format_date(iso: Any, pattern: Any) -> str | None:
    want("formatDate", 1, iso, "string", "null")
    want("formatDate", 2, pattern, "string")
    if iso is None:
        return None
    for value in (iso, pattern):
        _bounded("formatDate", value)
    try:
        return format_date(iso, pattern)
    except DateError as exc:
        raise FunctionError(f"formatDate() {exc}") from None


DATES: list[Function] = [
    Function(
        "now",
        _now,
        0,
        0,
        "string",
        "The current time in UTC, ISO 8601 (`2026-01-31T09:00:00Z`).",
    ),
    Function(
        "parseDate",
        _parse_date,
        1,
        2,
        "string",
        "A date as ISO 8601 text (`2026-01-31`, with `T09:00:00` when it has a time), read "
        "with a pattern of `YYYY YY MMMM MMM MM M DD D HH H mm ss Z` and `[literal]` "
        "(`parseDate('31.01.2026', 'DD.MM.YYYY')`); without a pattern: ISO 8601, "
        "`31 January 2026`, `January 31, 2026`, `31 Jan 2026`, `Jan 31, 2026`, `2026/01/31`, "
        "`31.01.2026`. null when the text does not match.",
        "parseDate(text, pattern?)",
    ),
    Function(
        "formatDate",
        _format_date,
        2,
        2,
        "string",
        "An ISO 8601 date written with a pattern (tokens as for parseDate).",
        "formatDate(date, pattern)",
    ),
]
