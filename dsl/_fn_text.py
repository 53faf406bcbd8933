"""Text functions of the expression language: case, search, split and replace, format, JSON and
regular expressions (the `regex` module, with a timeout, imported at the first one evaluated).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._function import MAX_STRING, Function, FunctionError, check_size, to_text, want

if TYPE_CHECKING:  # imported by the first regular expression evaluated, not by checks
    import regex

REGEX_TIMEOUT_S = 0.2


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


def _to_json(value: Any) -> str:
    return check_size(json.dumps(value, ensure_ascii=False, sort_keys=True))


def _from_json(s: Any) -> Any:
    want("fromJson", 1, s, "string")
    try:
        return json.loads(s)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise FunctionError(f"fromJson() got invalid JSON: {exc}") from None


def _compile(name: str, pattern: Any) -> regex.Pattern[str]:
    want(name, 2, pattern, "string")
    import regex

    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise FunctionError(f"{name}() pattern is invalid: {exc}") from None


def _regex_match(s: Any, pattern: Any) -> bool:
    want("regexMatch", 1, s, "string")
    try:
        return _compile("regexMatch", pattern).search(s, timeout=REGEX_TIMEOUT_S) is not None
    except TimeoutError:
        raise FunctionError("regexMatch() took too long; simplify the pattern") from None


def _regex_replace(s: Any, pattern: Any, repl: Any) -> str:
    want("regexReplace", 1, s, "string")
    want("regexReplace", 3, repl, "string")
    compiled = _compile("regexReplace", pattern)
    import regex

    try:
        out = compiled.sub(repl, s, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        raise FunctionError("regexReplace() took too long; simplify the pattern") from None
    except (regex.error, IndexError) as exc:
        raise FunctionError(f"regexReplace() replacement is invalid: {exc}") from None
    return check_size(out)


def _regex_find(s: Any, pattern: Any) -> dict[str, Any] | None:
    want("regexFind", 1, s, "string", "null")
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
