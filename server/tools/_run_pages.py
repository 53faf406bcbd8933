"""A run's answer under the answer budget: its result's longest list paged first (a batch's
items: the summary and the items that fit), then its steps; a cursor reads the next page of
either. A result the run store kept as an artifact (too large for a row) is paged from there.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import Principal, RunManager

from .._paging import Cursor, fitted_page, page_of, read_cursor, size, unknown_cursor

_GONE = (ErrorCode.RUN_NOT_FOUND, ErrorCode.ARTIFACT_NOT_FOUND, ErrorCode.ARTIFACT_EXPIRED)


async def run_answer(
    manager: RunManager, answer: dict[str, Any], principal: Principal, room: int
) -> dict[str, Any]:
    """`answer` (describe's) within `room` characters: its first pages."""
    answer = await _whole(manager, answer, principal)
    steps = answer.pop("steps", None)
    if steps is None:
        return _result_page(answer, 0, room)
    # The result's page leaves room for the steps' page that follows it, even an empty one.
    empty = page_of(0, 0, len(steps), Cursor("steps", answer["runId"], len(steps)))
    answer = _result_page(answer, 0, room - size({"steps": [], "stepsPage": empty}))
    least = 0 if "resultPage" in answer else 1  # a paged result leaves steps no room to spare
    return _steps_page(answer, steps, 0, room, least)


async def next_run_page(
    manager: RunManager, run_id: str, token: str, principal: Principal, room: int
) -> dict[str, Any]:
    """The page of run `run_id` that `token` (a nextCursor of its answer) names."""
    cursor = read_cursor(token, "result", "steps")
    if cursor.ref != run_id:
        raise unknown_cursor()
    try:
        answer = await manager.describe(run_id, cursor.kind == "steps", principal)
        answer = await _whole(manager, answer, principal)
    except TaskplateError as error:
        if error.code in _GONE:
            raise unknown_cursor() from None
        raise
    if cursor.kind == "steps":
        answer.pop("result", None)  # the steps' pages leave the result to its own
        steps = answer.pop("steps")
        if cursor.offset > len(steps):
            raise unknown_cursor()
        return _steps_page(answer, steps, cursor.offset, room, 1)
    field = _longest_list(answer.get("result"))
    if field is None or cursor.offset > len(answer["result"][field]):
        raise unknown_cursor()
    return _result_page(answer, cursor.offset, room, paged=True)


async def _whole(
    manager: RunManager, answer: dict[str, Any], principal: Principal
) -> dict[str, Any]:
    """`answer` with its whole result, read back from the artifact the store cut it into."""
    result = answer.get("result")
    if not (
        isinstance(result, dict) and result.get("truncated") and result.get("resultArtifactId")
    ):
        return dict(answer)
    chunk = await manager.read_artifact(result["resultArtifactId"], principal)
    whole = json.loads(chunk.data)
    if not isinstance(whole, dict):
        return dict(answer)
    return {**answer, "result": {**whole, "resultArtifactId": result["resultArtifactId"]}}


def _longest_list(result: Any) -> str | None:
    if not isinstance(result, dict):
        return None
    lists = [(size(v), k) for k, v in result.items() if isinstance(v, list) and v]
    return max(lists)[1] if lists else None


def _result_page(
    answer: dict[str, Any], offset: int, room: int, paged: bool = False
) -> dict[str, Any]:
    """The answer with its result's longest list from `offset`, as much as fits in `room`."""
    field = _longest_list(answer.get("result"))
    if field is None or (not paged and size(answer) <= room):
        return answer
    items = answer["result"][field][offset:]

    def put(part: list[Any], page: dict[str, Any]) -> dict[str, Any]:
        page = {**page, "field": field}
        return {**answer, "result": {**answer["result"], field: part}, "resultPage": page}

    following = partial(Cursor, "result", answer["runId"])
    least = 0 if not items else 1
    return fitted_page(put, following, items, offset, offset + len(items), room, least)


def _steps_page(
    answer: dict[str, Any], steps: list[Any], offset: int, room: int, least: int
) -> dict[str, Any]:
    rest, total = steps[offset:], len(steps)
    if offset == 0 and size({**answer, "steps": steps}) <= room:
        return {**answer, "steps": steps}

    def put(part: list[Any], page: dict[str, Any]) -> dict[str, Any]:
        return {**answer, "steps": part, "stepsPage": page}

    following = partial(Cursor, "steps", answer["runId"])
    return fitted_page(put, following, rest, offset, total, room, least)
