"""List and map functions of the expression language, and the list operations (`filter`, `map`,
…) whose bodies the evaluator runs per item.
"""

from __future__ import annotations

import json
from typing import Any

from ._function import Function, FunctionError, check_size, to_text, want


def _length(x: Any) -> int:
    want("length", 1, x, "string", "array", "object")
    return len(x)


def _join(items: Any, sep: Any = ",") -> str:
    want("join", 1, items, "array")
    want("join", 2, sep, "string")
    return check_size(str(sep).join(to_text(i) for i in items))


def _keys(m: Any) -> list[str]:
    want("keys", 1, m, "object")
    return list(m.keys())


def _values(m: Any) -> list[Any]:
    want("values", 1, m, "object")
    return list(m.values())


def _pluck(items: Any, key: Any) -> list[Any]:
    want("pluck", 1, items, "array")
    want("pluck", 2, key, "string")
    return [i.get(key) if isinstance(i, dict) else None for i in items]


def _unique(items: Any) -> list[Any]:
    want("unique", 1, items, "array")
    seen: set[Any] = set()
    out = []
    for item in items:
        # A text or a number is its own marker (1 and 1.0 stay apart, as their JSON does).
        marker = (
            (type(item), item)
            if isinstance(item, str | int | float | None)
            else (json.dumps(item, sort_keys=True))
        )
        if marker not in seen:
            seen.add(marker)
            out.append(item)
    return out


def _slice(items: Any, start: Any, end: Any = None) -> Any:
    want("slice", 1, items, "array", "string")
    want("slice", 2, start, "number")
    if end is not None:
        want("slice", 3, end, "number")
    return items[int(start) : None if end is None else int(end)]


def _flatten(items: Any) -> list[Any]:
    want("flatten", 1, items, "array")
    out: list[Any] = []
    for item in items:
        out.extend(item if isinstance(item, list) else [item])
        check_size(out)
    return out


def _default(value: Any, fallback: Any) -> Any:
    return fallback if value is None else value


def _coalesce(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _macro(*_args: Any) -> Any:
    raise FunctionError("list operations are evaluated by the evaluator")  # never reached


LISTS: list[Function] = [
    Function("length", _length, 1, 1, "number", "Length of a string, list or map.", reads=False),
    Function("join", _join, 1, 2, "string", "Items joined by a separator (default `,`)."),
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
        reads=False,
    ),
    Function("flatten", _flatten, 1, 1, "array", "A list of lists made one list (one level)."),
    Function(
        "default",
        _default,
        2,
        2,
        "arg0",
        "The value, or the fallback when it is null.",
        reads=False,
    ),
    Function(
        "coalesce",
        _coalesce,
        1,
        None,
        "arg0",
        "The first argument that is not null.",
        reads=False,
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
]
