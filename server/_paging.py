"""Answers kept under a budget of characters (20,000 tokens counted as 80,000 characters by
default, `dsl serve --answer-tokens` and a call's `maxTokens`): a long list or text answers the
part that fits, with its page {offset, returned, total, nextCursor}; never all or nothing.

A cursor names where the next page starts in something its caller owns (a run, an artifact) and
which tool made it: it is read back under the caller's own ownership check and by that tool
only, so a cursor of another caller or another tool, a stale one (its run or artifact gone) and
a garbled one are all one unknown cursor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from taskplate.contract import ErrorCode, TaskplateError

from ._opaque import opened, sealed

T = TypeVar("T")
CHARS_PER_TOKEN = 4
DEFAULT_TOKENS = 20_000
MIN_TOKENS = 1_000  # under this a page holds little more than its envelope
MAX_TOKENS = 1_000_000
_PREFIX = "pg1."
_REF = re.compile(r"(run|art)_[A-Za-z0-9]{1,64}", re.ASCII)
# What a cursor pages: a run's result list or steps (get_task_run reads the cursors of every
# run answer), or the content one tool answered, which only that tool reads on (content_kind).
KINDS = ("result", "steps", "content:scrape", "content:get_page_content")

MAX_TOKENS_ARG = {
    "type": "integer",
    "minimum": MIN_TOKENS,
    "maximum": MAX_TOKENS,
    "description": "Answer budget in tokens (default: the server's).",
}
CURSOR_ARG = {
    "type": "string",
    "minLength": 1,
    "description": "A nextCursor: the next page.",
}


@dataclass(frozen=True)
class Cursor:
    kind: str  # what is paged: a run's result list, its steps, or a text kept as an artifact
    ref: str  # the run or artifact it is in
    offset: int  # where the next page starts: an item, or a character of the text

    def token(self) -> str:
        body = json.dumps([self.kind, self.ref, self.offset], separators=(",", ":"))
        return sealed(_PREFIX, body)


def content_kind(tool: str) -> str:
    """The kind of the cursors into a content answer of `tool` (scrape, get_page_content)."""
    kind = f"content:{tool}"
    assert kind in KINDS, kind
    return kind


def unknown_cursor() -> TaskplateError:
    """A cursor read as nothing: garbled, stale or another caller's, all answered alike."""
    return TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        "unknown cursor: it is not one this tool answered to this caller, or what it pages is gone",
        "Call the tool again without `cursor` to start from the first page.",
    )


def read_cursor(token: str, *kinds: str) -> Cursor:
    """The cursor of one of `kinds` that `token` is; an unknown cursor otherwise."""
    body = opened(_PREFIX, token, 400)
    try:
        value = json.loads(body) if body is not None else None
    except ValueError:
        raise unknown_cursor() from None
    match value:
        case [str(k), str(ref), int(offset)] if k in kinds and _REF.fullmatch(ref) and offset >= 0:
            cursor = Cursor(k, ref, offset)
        case _:
            raise unknown_cursor()
    if cursor.token() != token:  # one spelling per cursor
        raise unknown_cursor()
    return cursor


def budget(default_chars: int, args: dict[str, Any]) -> int:
    """The characters an answer's text may take: the call's maxTokens, else the server's."""
    tokens = args.get("maxTokens")
    return tokens * CHARS_PER_TOKEN if isinstance(tokens, int) else default_chars


def size(answer: Any) -> int:
    """The characters of an answer's text (as `ok` serializes it)."""
    return len(json.dumps(answer, ensure_ascii=False, default=str))


def fitting(put: Callable[[Any], Any], items: Sequence[Any], room: int, least: int = 1) -> int:
    """How many of `items` `put(part)` keeps within `room` characters: the largest count whose
    answer fits, found by bisection; at least `least` (one by default, so paging moves on)."""
    low, high = min(least, len(items)), len(items)
    while low < high:
        mid = (low + high + 1) // 2
        if size(put(items[:mid])) <= room:
            low = mid
        else:
            high = mid - 1
    return low


def fitted_page(
    answer: Callable[[Any, dict[str, Any]], T],
    cursor: Callable[[int], Cursor],
    rest: Sequence[Any],
    offset: int,
    total: int,
    room: int,
    least: int = 1,
) -> T:
    """The answer `answer(part, page)` makes of the most of `rest` (what follows `offset`, of
    `total`) that fits in `room` characters, its page's `nextCursor` (`cursor(where)`) naming
    where the next starts. Sized with the longest cursor it may carry."""

    def put(part: Any) -> T:
        return answer(part, page_of(offset, len(part), total, cursor(total)))

    count = fitting(put, rest, room, least)
    end = offset + count
    return answer(rest[:count], page_of(offset, count, total, cursor(end) if end < total else None))


def page_of(offset: int, returned: int, total: int, next_cursor: Cursor | None) -> dict[str, Any]:
    return {
        "offset": offset,
        "returned": returned,
        "total": total,
        "nextCursor": next_cursor.token() if next_cursor is not None else None,
    }
