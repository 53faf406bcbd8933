"""The fixed function set of the expression language: pure, bounded, no I/O.

Every function checks its argument types and raises ExpressionError with a clear message.
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urljoin, urlsplit, urlunsplit

from ._dates import DateError, format_date, now_iso, parse_date
from ._numbers import NumberFormatError, parse_number

if TYPE_CHECKING:  # imported by the first regular expression evaluated, not by checks
    import regex

MAX_STRING = 1024 * 1024
MAX_LIST = 100_000
REGEX_TIMEOUT_S = 0.2


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


def _want(name: str, position: int, value: Any, *kinds: str) -> None:
    if type_name(value) not in kinds:
        raise FunctionError(
            f"{name}() argument {position} must be {' or '.join(kinds)}, got {type_name(value)}"
        )


def _length(x: Any) -> int:
    _want("length", 1, x, "string", "array", "object")
    return len(x)


def _str_fn(name: str, op: Callable[[str], str]) -> Callable[[Any], str]:
    def fn(x: Any) -> str:
        _want(name, 1, x, "string")
        return op(x)

    return fn


def _contains(haystack: Any, needle: Any) -> bool:
    _want("contains", 1, haystack, "string", "array")
    if isinstance(haystack, str):
        _want("contains", 2, needle, "string")
    return needle in haystack


def _starts_with(s: Any, prefix: Any) -> bool:
    _want("startsWith", 1, s, "string")
    _want("startsWith", 2, prefix, "string")
    return bool(s.startswith(prefix))


def _ends_with(s: Any, suffix: Any) -> bool:
    _want("endsWith", 1, s, "string")
    _want("endsWith", 2, suffix, "string")
    return bool(s.endswith(suffix))


def to_text(value: Any) -> str:
    """How a value reads inside a string: strings as-is, null empty, the rest as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _join(items: Any, sep: Any = ",") -> str:
    _want("join", 1, items, "array")
    _want("join", 2, sep, "string")
    return check_size(str(sep).join(to_text(i) for i in items))


def _split(s: Any, sep: Any) -> list[str]:
    _want("split", 1, s, "string")
    _want("split", 2, sep, "string")
    if sep == "":
        raise FunctionError("split() separator must not be empty")
    return check_size(s.split(sep))


def _replace(s: Any, old: Any, new: Any) -> str:
    for i, v in enumerate((s, old, new), 1):
        _want("replace", i, v, "string")
    if old == "":
        raise FunctionError("replace() needs a non-empty text to replace")
    if len(new) > len(old) and s.count(old) * (len(new) - len(old)) + len(s) > MAX_STRING:
        raise FunctionError(f"string result longer than {MAX_STRING} characters")
    return str(s.replace(old, new))


def _compile(name: str, pattern: Any) -> regex.Pattern[str]:
    _want(name, 2, pattern, "string")
    import regex

    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise FunctionError(f"{name}() pattern is invalid: {exc}") from None


def _regex_match(s: Any, pattern: Any) -> bool:
    _want("regexMatch", 1, s, "string")
    try:
        return _compile("regexMatch", pattern).search(s, timeout=REGEX_TIMEOUT_S) is not None
    except TimeoutError:
        raise FunctionError("regexMatch() took too long; simplify the pattern") from None


def _regex_replace(s: Any, pattern: Any, repl: Any) -> str:
    _want("regexReplace", 1, s, "string")
    _want("regexReplace", 3, repl, "string")
    compiled = _compile("regexReplace", pattern)
    import regex

    try:
        out = compiled.sub(repl, s, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        raise FunctionError("regexReplace() took too long; simplify the pattern") from None
    except (regex.error, IndexError) as exc:
        raise FunctionError(f"regexReplace() replacement is invalid: {exc}") from None
    return check_size(out)


def _default(value: Any, fallback: Any) -> Any:
    return fallback if value is None else value


def _coalesce(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _to_json(value: Any) -> str:
    return check_size(json.dumps(value, ensure_ascii=False, sort_keys=True))


def _from_json(s: Any) -> Any:
    _want("fromJson", 1, s, "string")
    try:
        return json.loads(s)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise FunctionError(f"fromJson() got invalid JSON: {exc}") from None


def _keys(m: Any) -> list[str]:
    _want("keys", 1, m, "object")
    return list(m.keys())


def _values(m: Any) -> list[Any]:
    _want("values", 1, m, "object")
    return list(m.values())


def _pluck(items: Any, key: Any) -> list[Any]:
    _want("pluck", 1, items, "array")
    _want("pluck", 2, key, "string")
    return [i.get(key) if isinstance(i, dict) else None for i in items]


def _unique(items: Any) -> list[Any]:
    _want("unique", 1, items, "array")
    seen: set[str] = set()
    out = []
    for item in items:
        marker = json.dumps(item, sort_keys=True)
        if marker not in seen:
            seen.add(marker)
            out.append(item)
    return out


def _flatten(items: Any) -> list[Any]:
    _want("flatten", 1, items, "array")
    out: list[Any] = []
    for item in items:
        out.extend(item if isinstance(item, list) else [item])
        check_size(out)
    return out


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


def _round(x: Any, digits: Any = 0) -> int | float:
    _want("round", 1, x, "number")
    _want("round", 2, digits, "number")
    if not math.isfinite(x):
        return float(x)
    out = round(x, int(digits))
    return int(out) if int(digits) <= 0 else out


def _url_host(url: Any) -> str:
    _want("urlHost", 1, url, "string")
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def _url_join(base: Any, ref: Any) -> str:
    _want("urlJoin", 1, base, "string")
    _want("urlJoin", 2, ref, "string")
    return urljoin(str(base), str(ref))


def _format(template: Any, *args: Any) -> str:
    """`format('{0} of {1}', a, b)`; `{{` and `}}` are literal braces."""
    _want("format", 1, template, "string")
    out, i = [], 0
    while i < len(template):
        ch = template[i]
        if template.startswith("{{", i) or template.startswith("}}", i):
            out.append(ch)
            i += 2
            continue
        if ch == "{":
            close = template.find("}", i)
            spec = template[i + 1 : close] if close > 0 else ""
            if not spec.isdigit() or int(spec) >= len(args):
                raise FunctionError(f"format() placeholder {{{spec}}} has no matching argument")
            out.append(to_text(args[int(spec)]))
            i = close + 1
            continue
        out.append(ch)
        i += 1
    return check_size("".join(out))


def _to_number(text: Any, locale: Any = None) -> int | float | None:
    _want("toNumber", 1, text, "string", "number", "null")
    if locale is not None:
        _want("toNumber", 2, locale, "string")
    if is_number(text):
        return text  # type: ignore[no-any-return]
    if text is None:
        return None
    try:
        return parse_number(text, locale)
    except NumberFormatError as exc:
        raise FunctionError(f"toNumber() {exc}") from None


def _regex_find(s: Any, pattern: Any) -> dict[str, Any] | None:
    _want("regexFind", 1, s, "string", "null")
    compiled = _compile("regexFind", pattern)
    if s is None:
        return None
    try:
        found = compiled.search(s, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        raise FunctionError("regexFind() took too long; simplify the pattern") from None
    if found is None:
        return None
    return {
        "match": found.group(0),
        "groups": list(found.groups()),
        "named": found.groupdict(),
        "start": found.start(),
    }


def _now() -> str:
    return now_iso()


def _parse_date(text: Any, pattern: Any = None) -> str | None:
    _want("parseDate", 1, text, "string", "null")
    if pattern is not None:
        _want("parseDate", 2, pattern, "string")
    if text is None:
        return None
    try:
        return parse_date(text, pattern)
    except DateError as exc:
        raise FunctionError(f"parseDate() {exc}") from None


def _format_date(iso: Any, pattern: Any) -> str | None:
    _want("formatDate", 1, iso, "string", "null")
    _want("formatDate", 2, pattern, "string")
    if iso is None:
        return None
    try:
        return format_date(iso, pattern)
    except DateError as exc:
        raise FunctionError(f"formatDate() {exc}") from None


def url_normalize(url: str) -> str:
    """The URL as a crawl key: scheme and host lower-cased, a default port, the fragment and an
    empty path dropped; the query kept as written (its order can matter to a site)."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower().rstrip(".")
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        netloc += f":{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _url_normalize(url: Any) -> str:
    _want("urlNormalize", 1, url, "string")
    return url_normalize(url)


def _glob_match(text: Any, patterns: Any) -> bool:
    _want("globMatch", 1, text, "string")
    _want("globMatch", 2, patterns, "string", "array")
    for pattern in [patterns] if isinstance(patterns, str) else patterns:
        _want("globMatch", 2, pattern, "string")
        if fnmatch.fnmatchcase(text, pattern):
            return True
    return False


def _slice(items: Any, start: Any, end: Any = None) -> Any:
    _want("slice", 1, items, "array", "string")
    _want("slice", 2, start, "number")
    if end is not None:
        _want("slice", 3, end, "number")
    return items[int(start) : None if end is None else int(end)]


def _macro(*_args: Any) -> Any:
    raise FunctionError("list operations are evaluated by the evaluator")  # never reached


@dataclass(frozen=True)
class Function:
    name: str
    impl: Callable[..., Any]
    min_args: int
    max_args: int | None  # None: any number
    returns: str  # a type name, or "any", or "arg0" (the first argument's type)
    summary: str
    signature: str = ""  # how a call reads, for docs and editors: "filter(list, x, predicate)"
    macro: bool = False  # the second argument names each item; see _expr_ast.MACROS


FUNCTIONS: Mapping[str, Function] = {
    f.name: f
    for f in [
        Function("length", _length, 1, 1, "number", "Length of a string, list or map."),
        Function("lower", _str_fn("lower", str.lower), 1, 1, "string", "Lower-case text."),
        Function("upper", _str_fn("upper", str.upper), 1, 1, "string", "Upper-case text."),
        Function(
            "trim",
            _str_fn("trim", str.strip),
            1,
            1,
            "string",
            "Text without surrounding white space.",
        ),
        Function(
            "contains", _contains, 2, 2, "boolean", "Substring of a string, or item of a list."
        ),
        Function("startsWith", _starts_with, 2, 2, "boolean", "Whether text starts with a prefix."),
        Function("endsWith", _ends_with, 2, 2, "boolean", "Whether text ends with a suffix."),
        Function("join", _join, 1, 2, "string", "Items joined by a separator (default `,`)."),
        Function("split", _split, 2, 2, "array", "Text split at a separator."),
        Function("replace", _replace, 3, 3, "string", "Every occurrence of a text replaced."),
        Function(
            "regexMatch",
            _regex_match,
            2,
            2,
            "boolean",
            "Whether a regular expression matches somewhere in the text.",
        ),
        Function(
            "regexReplace",
            _regex_replace,
            3,
            3,
            "string",
            "Every match of a regular expression replaced (`\\1` for groups).",
        ),
        Function("default", _default, 2, 2, "arg0", "The value, or the fallback when it is null."),
        Function("coalesce", _coalesce, 1, None, "arg0", "The first argument that is not null."),
        Function("toJson", _to_json, 1, 1, "string", "A value as JSON text."),
        Function("fromJson", _from_json, 1, 1, "any", "JSON text parsed to a value."),
        Function("keys", _keys, 1, 1, "array", "The keys of a map."),
        Function("values", _values, 1, 1, "array", "The values of a map."),
        Function("pluck", _pluck, 2, 2, "array", "One field from every map of a list."),
        Function("unique", _unique, 1, 1, "array", "A list without repeated items, first kept."),
        Function(
            "slice",
            _slice,
            2,
            3,
            "arg0",
            "Part of a list or text, from `start` up to (not including) `end`; negative counts "
            "from the end (`slice(urls, 0, 10)`: the first ten).",
            "slice(list, start, end?)",
        ),
        Function("flatten", _flatten, 1, 1, "array", "A list of lists made one list (one level)."),
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
        Function("urlHost", _url_host, 1, 1, "string", "The host name of a URL."),
        Function("urlJoin", _url_join, 2, 2, "string", "A URL resolved against a base URL."),
        Function(
            "urlNormalize",
            _url_normalize,
            1,
            1,
            "string",
            "A URL as a crawl key: scheme and host lower-case, no default port, no fragment, "
            "`/` for an empty path (`urlNormalize('HTTP://A.test:80/x#top')` → `http://a.test/x`).",
        ),
        Function(
            "globMatch",
            _glob_match,
            2,
            2,
            "boolean",
            "Whether the text matches a glob pattern, or one of a list of them (`*` any text, "
            "`?` one character, `[ab]` a set): `globMatch(url, '*/docs/*')`.",
            "globMatch(text, pattern | patterns)",
        ),
        Function(
            "format",
            _format,
            1,
            None,
            "string",
            "Text with `{0}`, `{1}`… replaced by the arguments.",
        ),
        Function(
            "filter",
            _macro,
            3,
            3,
            "arg0",
            "The items for which the predicate, with the item named `x`, is truthy.",
            "filter(list, x, predicate)",
            macro=True,
        ),
        Function(
            "map",
            _macro,
            3,
            3,
            "array",
            "The expression's value for every item, named `x`.",
            "map(list, x, expr)",
            macro=True,
        ),
        Function(
            "exists",
            _macro,
            3,
            3,
            "boolean",
            "Whether the predicate is truthy for some item (false for an empty list).",
            "exists(list, x, predicate)",
            macro=True,
        ),
        Function(
            "all",
            _macro,
            3,
            3,
            "boolean",
            "Whether the predicate is truthy for every item (true for an empty list).",
            "all(list, x, predicate)",
            macro=True,
        ),
        Function(
            "sortBy",
            _macro,
            3,
            4,
            "arg0",
            "The items sorted by a number or text key, stable; `'desc'` as 4th argument for "
            "largest first. Items whose key is null go last.",
            "sortBy(list, x, key, order?)",
            macro=True,
        ),
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
        Function(
            "regexFind",
            _regex_find,
            2,
            2,
            "object",
            "The first match of a regular expression as `{match, groups, named, start}` "
            "(`groups`: the numbered groups, `named`: the named ones), or null.",
            "regexFind(text, pattern)",
        ),
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
}
