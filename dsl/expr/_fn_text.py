"""Text functions of the expression language: case, search, split and replace, format, JSON and
regular expressions (the `regex` module, with a timeout, imported at the first one evaluated).
"""

from __future__ import annotations

import contextvars
import json
import math
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from taskplate.contract import MAX_VALUE_DEPTH, json_depth

from ._function import MAX_STRING, Function, FunctionError, check_size, to_text, want

T = TypeVar("T")

if TYPE_CHECKING:  # imported by the first regular expression evaluated, not by checks
    import regex

REGEX_TIME_S = 0.05  # regular expressions' time in all, in one evaluation (it holds a server)
# The time left to one evaluation's regular expressions; the evaluator sets it (_expr_eval.py).
regex_time_left: contextvars.ContextVar[list[float]] = contextvars.ContextVar("regex_time_left")
MAX_PATTERN = 1000  # characters of a regular expression (compiling one is not timed)
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def _str_fn(name: str, op: Callable[[str], str]) -> Callable[[Any], str]:
    def fn(x: Any) -> str:
        want(name, 1, x, "string")
        return op(x)

    return fn


def _contains(haystack: Any, needle: Any) -> bool:
    want("contains", 1, haystack, "string", "array")
    if isinstance(haystack, str):
        want("contains", 2, needle, "string")
    return needle in haystack


def _starts_with(s: Any, prefix: Any) -> bool:
    want("startsWith", 1, s, "string")
    want("startsWith", 2, prefix, "string")
    return bool(s.startswith(prefix))


def _ends_with(s: Any, suffix: Any) -> bool:
    want("endsWith", 1, s, "string")
    want("endsWith", 2, suffix, "string")
    return bool(s.endswith(suffix))


def _split(s: Any, sep: Any) -> list[str]:
    want("split", 1, s, "string")
    want("split", 2, sep, "string")
    if sep == "":
        raise FunctionError("split() separator must not be empty")
    return check_size(s.split(sep))


def _replace(s: Any, old: Any, new: Any) -> str:
    for i, v in enumerate((s, old, new), 1):
        want("replace", i, v, "string")
    if old == "":
        raise FunctionError("replace() needs a non-empty text to replace")
    if len(new) > len(old) and s.count(old) * (len(new) - len(old)) + len(s) > MAX_STRING:
        raise FunctionError(f"string result longer than {MAX_STRING} characters")
    return str(s.replace(old, new))


def _format(template: Any, *args: Any) -> str:
    """`format('{0} of {1}', a, b)`; `{{` and `}}` are literal braces."""
    want("format", 1, template, "string")
    texts: dict[int, str] = {}
    size = 0

    def placeholder(match: re.Match[str]) -> str:
        nonlocal size
        token, spec = match.group(0), match.group(1)
        if spec is None:
            text = token[0]
        else:
            if not spec.isdigit() or int(spec) >= len(args):
                raise FunctionError(f"format() placeholder {{{spec}}} has no matching argument")
            text = texts.setdefault(int(spec), to_text(args[int(spec)]))
        size += len(text) - len(token)
        if len(template) + size > MAX_STRING:  # checked as it grows: '{0}{0}…' multiplies
            raise FunctionError(f"string result longer than {MAX_STRING} characters")
        return text

    return check_size(_PLACEHOLDER.sub(placeholder, template))


def _to_json(value: Any) -> str:
    return check_size(json.dumps(value, ensure_ascii=False, sort_keys=True))


def _from_json(s: Any) -> Any:
    want("fromJson", 1, s, "string")
    # deeper than a run may hold (a run's answer must stay readable), whatever json.loads takes
    if json_depth(s) > MAX_VALUE_DEPTH:
        raise FunctionError(
            f"fromJson() got JSON nested deeper than {MAX_VALUE_DEPTH} levels, more than a value "
            "may be"
        )
    try:
        return json.loads(s, parse_constant=_no_constant, parse_float=_finite)
    except ValueError as exc:  # a number of over 4300 digits is a ValueError
        raise FunctionError(f"fromJson() got invalid JSON: {_json_problem(exc)}") from None


class _Refused(ValueError):
    """A JSON number fromJson refuses, in our words."""


def _json_problem(exc: ValueError) -> str:
    """Where and why the text is not JSON, in our words (json's position, no Python text)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg.lower()} at line {exc.lineno}, column {exc.colno}"
    if isinstance(exc, _Refused):
        return str(exc)
    return "a number of more than 4300 digits"  # int()'s limit, the one other ValueError


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"number {text:.24} is out of range (past 1.8e308)")
    return value


def _compile(name: str, pattern: Any) -> regex.Pattern[str]:
    want(name, 2, pattern, "string")
    if len(pattern) > MAX_PATTERN:
        raise FunctionError(
            f"{name}() patterns have at most {MAX_PATTERN} characters, got {len(pattern)}"
        )
    import regex

    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise FunctionError(f"{name}() pattern is invalid: {exc}") from None


def _timed(name: str, run: Callable[[float], T]) -> T:
    """`run(timeout)` within what is left of the evaluation's REGEX_TIME_S."""
    left = regex_time_left.get(None) or [REGEX_TIME_S]
    began = time.perf_counter()
    try:
        if left[0] <= 0:
            raise TimeoutError
        return run(left[0])
    except TimeoutError:
        raise FunctionError(
            f"{name}() took too long: regular expressions have {REGEX_TIME_S * 1000:.0f} ms "
            "in all in one expression; simplify the pattern"
        ) from None
    finally:
        left[0] -= time.perf_counter() - began


def _regex_match(s: Any, pattern: Any) -> bool:
    want("regexMatch", 1, s, "string")
    compiled = _compile("regexMatch", pattern)
    return _timed("regexMatch", lambda timeout: compiled.search(s, timeout=timeout) is not None)


def _regex_replace(s: Any, pattern: Any, repl: Any) -> str:
    want("regexReplace", 1, s, "string")
    want("regexReplace", 3, repl, "string")
    compiled = _compile("regexReplace", pattern)
    import regex

    size = len(s)

    def expand(match: regex.Match[str]) -> str:
        nonlocal size  # bounded as it grows: a long replacement for many matches multiplies
        text = match.expand(repl)
        size += len(text) - (match.end() - match.start())
        if size > MAX_STRING:
            raise FunctionError(f"string result longer than {MAX_STRING} characters")
        return text

    # A plain replacement that cannot outgrow the bound is left to regex, faster.
    plain = "\\" not in repl and len(s) + (len(s) + 1) * len(repl) <= MAX_STRING
    replacement = repl if plain else expand
    try:
        out = _timed("regexReplace", lambda timeout: compiled.sub(replacement, s, timeout=timeout))
    except (regex.error, IndexError) as exc:
        raise FunctionError(f"regexReplace() replacement is invalid: {exc}") from None
    return check_size(out)


def _regex_find(s: Any, pattern: Any) -> dict[str, Any] | None:
    want("regexFind", 1, s, "string", "null")
    compiled = _compile("regexFind", pattern)
    if s is None:
        return None
    found = _timed("regexFind", lambda timeout: compiled.search(s, timeout=timeout))
    if found is None:
        return None
    return {
        "match": found.group(0),
        "groups": list(found.groups()),
        "named": found.groupdict(),
        "start": found.start(),
    }


TEXT: list[Function] = [
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
    Function("contains", _contains, 2, 2, "boolean", "Substring of a string, or item of a list."),
    Function("startsWith", _starts_with, 2, 2, "boolean", "Whether text starts with a prefix."),
    Function("endsWith", _ends_with, 2, 2, "boolean", "Whether text ends with a suffix."),
    Function("split", _split, 2, 2, "array", "Text split at a separator."),
    Function("replace", _replace, 3, 3, "string", "Every occurrence of a text replaced."),
    Function(
        "format",
        _format,
        1,
        None,
        "string",
        "Text with `{0}`, `{1}`… replaced by the arguments.",
    ),
    Function("toJson", _to_json, 1, 1, "string", "A value as JSON text."),
    Function("fromJson", _from_json, 1, 1, "any", "JSON text parsed to a value."),
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
]
