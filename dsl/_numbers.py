"""Numbers read from text as people write them: `$1,299.00`, `1.234,5 €`, `CHF 1'000`.

Shared by `toNumber()` and typed `extract` fields; pure, no locale database.
"""

from __future__ import annotations

import re
import unicodedata

# Languages that write the decimal separator as a comma (1.234,5); the rest use a dot.
_COMMA_DECIMAL = frozenset(
    [
        "de",
        "fr",
        "es",
        "it",
        "pt",
        "nl",
        "ru",
        "pl",
        "cs",
        "sk",
        "sv",
        "da",
        "fi",
        "nb",
        "nn",
        "no",
        "tr",
        "id",
        "uk",
        "ro",
        "hu",
        "el",
        "bg",
        "hr",
        "sl",
        "sr",
        "lt",
        "lv",
        "et",
        "vi",
        "be",
        "ca",
        "eu",
        "gl",
        "is",
        "ka",
        "kk",
        "mk",
        "az",
        "sq",
        "bs",
    ]
)
# Regions that write a dot although their language usually writes a comma (de-CH: 1'234.50).
_DOT_REGIONS = frozenset({"ch", "li", "mx"})
_MINUS = "-\u2212\u2012\u2013"
_GROUPING = " '\u00a0\u202f\u2009\u2019_"
_CODE = re.compile(r"\b[A-Z]{3}\b")
_SHAPE = re.compile(r"^[0-9.,]+$")


class NumberFormatError(ValueError):
    """The locale is not one this module knows how to read."""


def decimal_mark(locale: str | None) -> str | None:
    """',' or '.' for a locale such as de, de-DE or de_CH; None when no locale is given."""
    if locale is None:
        return None
    parts = locale.strip().replace("_", "-").lower().split("-")
    if not parts[0].isalpha() or not 2 <= len(parts[0]) <= 3:
        raise NumberFormatError(f'"{locale}" is not a locale such as en, de or fr-CH')
    if len(parts) > 1 and parts[1] in _DOT_REGIONS:
        return "."
    return "," if parts[0] in _COMMA_DECIMAL else "."


def parse_number(text: str, locale: str | None = None) -> float | int | None:
    """The number in `text`, or None when it holds none.

    Currency signs and ISO codes, spaces, apostrophes and thousands separators are dropped;
    `-`, `−` or parentheses make it negative. Without a locale, the last of `.` and `,` is the
    decimal mark when both appear; a lone `,` followed by exactly three digits groups thousands.
    """
    mark = decimal_mark(locale)
    body = _CODE.sub("", text)
    negative = False
    kept = []
    for ch in body.strip():
        if ch.isdigit():
            kept.append(str(unicodedata.digit(ch, 0)) if not ch.isascii() else ch)
        elif ch in ".,":
            kept.append(ch)
        elif ch in _MINUS or ch == "(":
            negative = negative or not kept
        elif ch in _GROUPING or ch in "+)" or unicodedata.category(ch) in ("Sc", "Zs"):
            continue
        else:
            return None  # letters or other signs: not a number as written
    digits = "".join(kept)
    if not digits or not _SHAPE.match(digits) or not any(c.isdigit() for c in digits):
        return None
    if mark is None:
        mark = _guess_mark(digits)
    group = "," if mark == "." else "."
    if digits.count(mark) > 1:
        return None
    integer, _, fraction = digits.partition(mark)
    if group in fraction or not _groups_ok(integer, group):
        return None
    integer = integer.replace(group, "") or "0"
    value: float | int = float(f"{integer}.{fraction}") if fraction else int(integer)
    if fraction == "" and mark in digits:
        value = float(value)
    return -value if negative else value


def _guess_mark(digits: str) -> str:
    dot, comma = digits.rfind("."), digits.rfind(",")
    if dot >= 0 and comma >= 0:
        return "." if dot > comma else ","
    if comma >= 0:
        after = digits[comma + 1 :]
        lone_thousands = digits.count(",") == 1 and len(after) == 3 and digits[0] != "0"
        return "." if digits.count(",") > 1 or lone_thousands else ","
    if dot >= 0 and digits.count(".") > 1:
        return ","
    return "."


def _groups_ok(integer: str, group: str) -> bool:
    """Thousands separators stand every three digits (1,234,567), or are absent."""
    if group not in integer:
        return True
    head, *rest = integer.split(group)
    return 1 <= len(head) <= 3 and all(len(part) == 3 for part in rest)
