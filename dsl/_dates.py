"""Dates in expressions: ISO 8601 text in and out, patterns such as `DD.MM.YYYY` in between.

Pure but for `now()`; English month names only; no time-zone database (offsets only).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
# Longest first, so that MMMM is not read as MM + MM.
_TOKENS = ("YYYY", "MMMM", "MMM", "MM", "M", "DD", "D", "HH", "H", "mm", "ss", "YY", "Z")
_TOKEN_RE = re.compile("|".join(_TOKENS) + r"|\[[^\]]*\]")
_PARSE = {
    "YYYY": r"(?P<year>\d{4})",
    "YY": r"(?P<yy>\d{2})",
    "MMMM": r"(?P<month_name>[A-Za-z]+)",
    "MMM": r"(?P<month_abbr>[A-Za-z]{3})\.?",
    "MM": r"(?P<month>\d{2})",
    "M": r"(?P<month>\d{1,2})",
    "DD": r"(?P<day>\d{2})",
    "D": r"(?P<day>\d{1,2})",
    "HH": r"(?P<hour>\d{2})",
    "H": r"(?P<hour>\d{1,2})",
    "mm": r"(?P<minute>\d{2})",
    "ss": r"(?P<second>\d{2})",
    "Z": r"(?P<zone>Z|[+-]\d{2}:?\d{2})",
}
# Tried in order when parseDate() is given no pattern and the text is not ISO 8601.
COMMON_PATTERNS = (
    "D MMMM YYYY",
    "MMMM D, YYYY",
    "D MMM YYYY",
    "MMM D, YYYY",
    "YYYY/MM/DD",
    "DD.MM.YYYY",
)


class DateError(ValueError):
    """A pattern or date the functions cannot use; the message says what to change."""


_fixed_now: list[str] = []  # `dsl test` replays a case at the time it was recorded


def now_iso() -> str:
    if _fixed_now:
        return _fixed_now[-1]
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


@contextlib.contextmanager
def fixed_clock(iso: str) -> Iterator[None]:
    """`now()` answers `iso` in this process until the block ends."""
    _fixed_now.append(iso)
    try:
        yield
    finally:
        _fixed_now.pop()


def _iso(value: date | datetime) -> str:
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out, cursor, seen = [], 0, set()
    for match in _TOKEN_RE.finditer(pattern):
        out.append(re.escape(pattern[cursor : match.start()]))
        token = match.group(0)
        if token.startswith("["):
            out.append(re.escape(token[1:-1]))
        else:
            group = _PARSE[token]
            name = group.split(">")[0][4:]
            if name in seen:
                raise DateError(f'pattern "{pattern}" names {token} twice')
            seen.add(name)
            out.append(group)
        cursor = match.end()
    out.append(re.escape(pattern[cursor:]))
    return re.compile(r"\s*" + "".join(out) + r"\s*", re.IGNORECASE)


def _month(fields: dict[str, str]) -> int:
    if fields.get("month"):
        return int(fields["month"])
    name = (fields.get("month_name") or fields.get("month_abbr") or "").lower()
    for i, month in enumerate(MONTHS, 1):
        if name == month or (len(name) == 3 and month.startswith(name)):
            return i
    raise DateError(f'"{name}" is not a month name')


def _zone(text: str) -> timezone:
    if text.upper() == "Z":
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def parse_with(text: str, pattern: str) -> str | None:
    """ISO 8601 text of `text` read with `pattern`, or None when it does not match."""
    match = _pattern_regex(pattern).fullmatch(text)
    if match is None:
        return None
    fields = {k: v for k, v in match.groupdict().items() if v is not None}
    year = int(fields["year"]) if "year" in fields else 2000 + int(fields.get("yy", "0"))
    try:
        day = date(year, _month(fields), int(fields.get("day", "1")))
    except (DateError, ValueError):
        return None
    if not {"hour", "minute", "second"} & fields.keys():
        return _iso(day)
    zone = _zone(fields["zone"]) if "zone" in fields else None
    try:
        moment = datetime(
            day.year,
            day.month,
            day.day,
            int(fields.get("hour", "0")),
            int(fields.get("minute", "0")),
            int(fields.get("second", "0")),
            tzinfo=zone,
        )
    except ValueError:
        return None
    return _iso(moment)


def parse_date(text: str, pattern: str | None = None) -> str | None:
    """ISO 8601 text for a date written as ISO 8601, with `pattern`, or in a common form."""
    text = text.strip()
    if pattern is not None:
        return parse_with(text, pattern)
    try:
        value: date | datetime = (
            datetime.fromisoformat(text.replace("Z", "+00:00"))
            if "T" in text or " " in text.strip()
            else date.fromisoformat(text)
        )
        return _iso(value)
    except ValueError:
        pass
    for common in COMMON_PATTERNS:
        found = parse_with(text, common)
        if found is not None:
            return found
    return None


def format_date(iso: str, pattern: str) -> str:
    """An ISO 8601 date or date-time written with `pattern` (YYYY-MM-DD, D MMMM YYYY, HH:mm…)."""
    try:
        moment = (
            datetime.fromisoformat(iso.replace("Z", "+00:00"))
            if "T" in iso
            else datetime.combine(date.fromisoformat(iso), datetime.min.time())
        )
    except ValueError:
        raise DateError(
            f'"{iso}" is not an ISO 8601 date; read it with parseDate() first'
        ) from None
    values = {
        "YYYY": f"{moment.year:04d}",
        "YY": f"{moment.year % 100:02d}",
        "MMMM": MONTHS[moment.month - 1].capitalize(),
        "MMM": MONTHS[moment.month - 1][:3].capitalize(),
        "MM": f"{moment.month:02d}",
        "M": str(moment.month),
        "DD": f"{moment.day:02d}",
        "D": str(moment.day),
        "HH": f"{moment.hour:02d}",
        "H": str(moment.hour),
        "mm": f"{moment.minute:02d}",
        "ss": f"{moment.second:02d}",
        "Z": _iso(moment)[19:] if moment.tzinfo else "",
    }
    return _TOKEN_RE.sub(
        lambda m: m.group(0)[1:-1] if m.group(0).startswith("[") else values[m.group(0)], pattern
    )
