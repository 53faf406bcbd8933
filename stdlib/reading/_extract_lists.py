"""`extract`'s lists (`all: true` fields, at every depth): read again until their numbers of
matches have stopped changing, with the smart wait's watcher (`browser.wait_for_steady`).

Counts and waits; extract.py reads, types and reports. Never waits with `optional: true`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

DEFAULT_QUIET_MS = 500


@cache
def with_watch(script: str) -> str:
    """The page script with the watcher's state in its answer (`watch`), loaded on first use."""
    from taskplate.browser import STATE

    return script.replace("(STATE)", f"({STATE})")


def has_lists(fields: dict[str, dict[str, Any]]) -> bool:
    return any(f.get("all") or has_lists(f.get("fields") or {}) for f in fields.values())


def counts(values: Any, fields: dict[str, dict[str, Any]], at: str = "") -> dict[str, int]:
    """The number of matches of every list, by its path (`products`, `products[].tags`),
    summed over the records it is in."""
    out: dict[str, int] = {}
    records = values if isinstance(values, list) else [values]
    for name, field in fields.items():
        path = f"{at}{name}"
        found = [r.get(name) for r in records if isinstance(r, dict)]
        if field.get("all"):
            out[path] = sum(len(v) for v in found if isinstance(v, list))
        inner = field.get("fields")
        if isinstance(inner, dict):
            below = [x for v in found for x in (v if isinstance(v, list) else [v]) if x is not None]
            suffix = "[]." if field.get("all") else "."
            for key, n in counts(below, inner, path + suffix).items():
                out[key] = out.get(key, 0) + n
    return out


def measure(read: dict[str, Any]) -> dict[str, int]:
    """The read's lists' matches, counted where it was parsed (off the event loop)."""
    return dict(read["counts"])


async def steady(
    tab: Any,
    first: dict[str, Any],
    look: Callable[[], Awaitable[dict[str, Any] | None]],
    timeout_s: float,
    quiet_ms: int,
) -> tuple[dict[str, Any] | None, list[str]]:
    """The read once every list's number of matches has stopped changing (or the time is up:
    then what was there, and a warning naming the lists still growing)."""
    from taskplate.browser import wait_for_steady

    before = measure(first)
    waited = await wait_for_steady(
        tab,
        first,
        look,
        measure,
        timeout_s=max(0.0, timeout_s),
        quiet_ms=quiet_ms,
    )
    if waited.steady or waited.read is None:
        return waited.read, []
    now = measure(waited.read)
    moving = [p for p, n in now.items() if n != before.get(p)] or list(now)
    lists = ", ".join(f"{p} ({now[p]} matches)" for p in moving)
    return waited.read, [
        f"still changing after {waited.waited_ms} ms: {lists}; the list may be partial. Give "
        "it more timeoutMs, or scroll or wait for it to end first"
    ]
