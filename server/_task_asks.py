"""The questions of 2025-11-25 tasks (a `confirm` step of a run started as a task): while one is
open the task is `input_required`, and the question goes to the requester the way the spec says,
as an `elicitation/create` carrying the task's `_meta["io.modelcontextprotocol/related-task"]` on
the task's `tasks/result` (the one already open, else the next one). A requester that only polls
tasks/get gets it over the connection after ON_RESULT_S. Held by the server that runs the task,
in memory: asked of another server, the task shows `working`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import ServerMessageMetadata

from ._task_wire import RELATED_TASK

ON_RESULT_S = 10.0  # how long a question waits for the task's tasks/result before the connection


@dataclass
class TaskAsks:
    """Per task: whether a question is open, and the tasks/result requests open for it (the
    SDK's request-scoped session of each: what is sent through it rides that request)."""

    _asking: set[str] = field(default_factory=set)
    _results: dict[str, list[tuple[Any, types.RequestId]]] = field(default_factory=dict)
    _arrived: dict[str, anyio.Event] = field(default_factory=dict)

    def asking(self, task_id: str) -> bool:
        return task_id in self._asking

    @contextmanager
    def awaiting_result(
        self, task_id: str, session: Any, request_id: types.RequestId | None
    ) -> Iterator[None]:
        """A tasks/result of this task is open (`session`, its request's): questions ride it."""
        if request_id is None:  # a notification carries nothing back
            yield
            return
        opening = (session, request_id)
        self._results.setdefault(task_id, []).append(opening)
        self._arrived.pop(task_id, anyio.Event()).set()
        try:
            yield
        finally:
            opened = self._results.get(task_id, [])
            opened.remove(opening)
            if not opened:
                self._results.pop(task_id, None)

    async def ask(
        self, task_id: str, message: str, schema: types.ElicitRequestedSchema, connection: Any
    ) -> types.ElicitResult:
        """The requester's answer to one question of the task, asked on its tasks/result, else
        (none came within ON_RESULT_S) over `connection` (a session of the requester's)."""
        self._asking.add(task_id)
        try:
            with anyio.move_on_after(ON_RESULT_S):
                while not self._results.get(task_id):
                    await self._arrived.setdefault(task_id, anyio.Event()).wait()
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message=message,
                    requested_schema=schema,
                    _meta={RELATED_TASK: {"taskId": task_id}},
                )
            )
            session, request_id = self._results.get(task_id, [(connection, None)])[-1]
            result: types.ElicitResult = await session.send_request(
                request,
                types.ElicitResult,
                metadata=ServerMessageMetadata(related_request_id=request_id),
            )
            return result
        finally:
            self._asking.discard(task_id)
