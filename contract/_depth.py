"""How deep a value or a JSON text nests, and the one bound every value a run makes is held to, so
that a run stays readable. Pure and iterative (no recursion to exhaust); no I/O.

Why a bound at all: an answer's JSON goes through serializers with depth limits of their own
(pydantic-core writes at most about 250 levels, the SDK reads at most 200, Python's json recurses
to about 1,000), and a value deeper than those makes a run that can be stored but never read.
Values are held to MAX_VALUE_DEPTH where they are made (fromJson, an action's or a provider's
result, a run's inputs, its result), well inside all of them with room for the answer around it.
"""

from __future__ import annotations

import re
from typing import Any

MAX_VALUE_DEPTH = 100  # levels of lists and objects in one value (a scalar is 0, [] is 1)
_CONTAINERS = (dict, list, tuple)
DEEPER = f"(nested deeper than {MAX_VALUE_DEPTH} levels: cut here)"


def value_depth(value: Any, stop: int = MAX_VALUE_DEPTH + 1) -> int:
    """The levels of lists/tuples and dicts in `value`, counted up to `stop` at most (the walk
    ends there, so a huge deep value costs no more than the part within the bound). Level by
    level, and only containers are visited: run_action measures every action's result."""
    depth = 0
    level = [value] if isinstance(value, _CONTAINERS) else []
    while level and depth < stop:
        depth += 1
        inner: list[Any] = []
        for container in level:
            items = container.values() if isinstance(container, dict) else container
            inner.extend([item for item in items if isinstance(item, _CONTAINERS)])
        level = inner
    return depth


def too_deep(value: Any) -> bool:
    return value_depth(value) > MAX_VALUE_DEPTH


def capped(value: Any) -> Any:
    """`value` with every list or object below MAX_VALUE_DEPTH levels replaced by the text
    DEEPER; `value` itself when it is within the bound."""
    if not too_deep(value):
        return value
    return _cut(value, MAX_VALUE_DEPTH)


def _cut(value: Any, room: int) -> Any:
    # iterative, as deep values are the point: each container is rebuilt with its children cut
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, room)]
    copy: Any
    while stack:
        current, parent, key, left = stack.pop()
        if isinstance(current, dict | list | tuple) and left <= 0:
            parent[key] = DEEPER
        elif isinstance(current, dict):
            parent[key] = copy = dict.fromkeys(current)
            stack.extend((v, copy, k, left - 1) for k, v in current.items())
        elif isinstance(current, list | tuple):
            parent[key] = copy = [None] * len(current)
            stack.extend((v, copy, i, left - 1) for i, v in enumerate(current))
        else:
            parent[key] = current
    return root[0]


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)  # a JSON string, or one left open
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """How deep a JSON text nests its arrays and objects (strings skipped), without parsing it
    (so before a parser that recurses or limits depth itself is given it)."""
    level = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        if bracket in "[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest
