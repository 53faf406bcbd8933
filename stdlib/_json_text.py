"""A large value's work kept from holding the event loop, so that an action's result checked for
valid Unicode and depth, a run's checkpoint and its result (megabytes each) hold no other run or
caller: its JSON text made on the loop in pieces (`json_text`), each a few milliseconds, and a
Python walk of it in a worker thread (`walked`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import anyio

from taskplate.contract import capped

SMALL_NODES, SMALL_CHARS = 5_000, 1 << 20  # a piece: a few milliseconds of json.dumps
T = TypeVar("T")


async def walked(work: Callable[..., T], value: Any, *args: Any) -> T:
    """`work(value, *args)`: inline for a small value, in a worker thread for a large one. A
    thread running Python lets the loop go every few milliseconds (the interpreter's switch
    interval), where the same walk on the loop held it throughout: the depth check and the
    records' checks of a 20,000-row extract, 75 ms in one stretch (tests/server/test_loop_holds).
    Only for walks in Python: one C call (json.dumps, json.loads) holds the loop from any thread."""
    if small(value):
        return work(value, *args)
    return await anyio.to_thread.run_sync(work, value, *args)


async def json_text(value: Any) -> str:
    """`value` as JSON (its depth capped, what JSON lacks as text), the same text json.loads
    reads back as one json.dumps call would make; a large value piece by piece, the loop let go
    between pieces. Not a worker thread: json.dumps holds the interpreter throughout, so a
    thread's dump of megabytes held the loop all the same (135 ms, tests/server/test_loop_holds)."""
    if small(value):
        return _dumped(value)
    parts: list[str] = []
    await _pieces(value, parts)
    return "".join(parts)


def small(value: Any) -> bool:
    """Whether `value` has at most SMALL_NODES members of lists and objects and SMALL_CHARS
    characters of text in them; level by level, the walk stops at either bound, so a large value
    costs no more than a small one to tell."""
    nodes, chars = 0, len(value) if isinstance(value, str) else 0
    level = [value] if isinstance(value, dict | list | tuple) else []
    while level:
        nodes += sum(map(len, level))
        if nodes > SMALL_NODES:
            return False  # told before the members are visited: a huge list costs nothing
        inner: list[Any] = []
        for container in level:
            for member in container.values() if isinstance(container, dict) else container:
                if isinstance(member, str):
                    chars += len(member)
                elif isinstance(member, dict | list | tuple):
                    inner.append(member)
        if chars > SMALL_CHARS:
            return False
        level = inner
    return chars <= SMALL_CHARS


def _dumped(value: Any) -> str:
    return json.dumps(capped(value), ensure_ascii=False, default=str)


async def _pieces(value: Any, parts: list[str]) -> None:
    if small(value) or not isinstance(value, dict | list | tuple) or not value:
        parts.append(_dumped(value))  # a long text alone: one C call, a millisecond a megabyte
        await anyio.lowlevel.checkpoint()
    elif isinstance(value, dict):
        for n, (key, member) in enumerate(value.items()):
            parts.append(("{" if n == 0 else ", ") + _dumped(str(key)) + ": ")
            await _pieces(member, parts)
        parts.append("}")
    else:
        parts.append("[")
        await _members(list(value), parts)
        parts.append("]")


async def _members(members: list[Any], parts: list[str]) -> None:
    """A list's members, comma-separated without its brackets: halved until each half is small."""
    if len(members) == 1:
        await _pieces(members[0], parts)
    elif small(members):
        parts.append(_dumped(members)[1:-1])
        await anyio.lowlevel.checkpoint()
    else:
        half = len(members) // 2
        await _members(members[:half], parts)
        parts.append(", ")
        await _members(members[half:], parts)
