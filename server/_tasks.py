"""MCP Tasks on both protocol lines, over runs: a task IS a run, its task id the run id, so a
task lives in the run store and any server on the store answers for it.

2025-11-25 (tasks in core): `run_task_template` and `run_steps` declare `execution.taskSupport:
optional`; a `tools/call` carrying `task` starts the run as an async one and answers a
CreateTaskResult; `tasks/get`, `tasks/result` (waits for the end, then the tool's own answer),
`tasks/list` and `tasks/cancel` read and cancel runs; `notifications/tasks/status` follows
each task this connection created.

2026-07-28 (the extension `io.modelcontextprotocol/tasks`, SEP-2663): when the request declares
the extension, a `run_task_template` whose run is async (options.mode async, or auto on a long
template) is answered with a task handle (`resultType: task`) instead of `{runId, queued}`;
`tasks/get` carries the result (or error) once terminal and the run's open questions
(`inputRequests`, the inbox's input-required flow) while it waits; `tasks/update` delivers
their answers; `tasks/cancel` cancels.

A task is its caller's: the run's stored principal must be the requester's (`Principal.sees`:
an operator sees every task; a stateless caller without a token, which the transport cannot
tell apart, owns only the runs such callers started, reachable by their unguessable id); any
other id is a protocol error (-32602) worded as for an unknown id, never another caller's task.
A tasks/list cursor is a token this server made (`_task_cursor.py`), anything else -32602.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from taskplate.contract import RunStatus, TaskplateError
from taskplate.interpreter import Principal, RunRow

from ._state import ServerState
from ._task_cursor import cursor_after, read_cursor
from ._task_wire import (
    INVALID_PARAMS,
    LEGACY,
    METHOD_NOT_FOUND,
    RELATED_TASK,
    RUN_FAILED,
    TASK_CAPABILITY,
    legacy_task,
    modern_task,
)

log = logging.getLogger("taskplate.serve")
EXTENSION = "io.modelcontextprotocol/tasks"
WATCH_S = 0.5
CANCEL_WAIT_S = 10.0  # how long tasks/cancel waits for the run to stop before it answers  # how often a task's status is read again for its notifications
LIST_PAGE = 50  # tasks a tasks/list page carries

# The answer a task-supporting tool gives once its run has ended (tasks/result, tasks/get):
# the same answer its sync call gives.
Final = Callable[[ServerState, str], Awaitable[CallToolResult]]
# What tools/list adds, on the 2025-11-25 line, to each tool whose runs may be tasks.
TASK_SUPPORT = {"taskSupport": "optional"}


def task_requested(ctx: Context) -> bool:
    """True when this tools/call asks for a task (2025-11-25's `task` param): the tool starts
    its run as an async one and answers at once."""
    context = ctx.request_context
    params = context.params
    return (
        context.protocol_version == LEGACY
        and isinstance(params, Mapping)
        and params.get("task") is not None
    )


def _declared(ctx: ServerRequestContext[Any, Any]) -> bool:
    capabilities = ctx.session.client_capabilities
    return bool(capabilities and capabilities.extensions and EXTENSION in capabilities.extensions)


def _error(code: int, message: str) -> MCPError:
    return MCPError(code=code, message=message)


class _StatusNote(BaseModel):
    """notifications/tasks/status with the Task as it is (its `ttl: null` kept: the SDK's
    typed notification drops None fields, and the schema requires ttl)."""

    method: str = "notifications/tasks/status"
    params: dict[str, Any]


class TaskParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: dict[str, Any]


class ListParams(types.RequestParams):
    cursor: str | None = None


@dataclass
class Tasks:
    """The server middleware and request handlers of both lines. `finals`: per tool that
    supports tasks, its answer for an ended run (`run_steps` runs carry that template id; every
    other run is a run_task_template's)."""

    state: ServerState
    finals: dict[str, Final]
    _watched: set[str] = field(default_factory=set)

    # -- the middleware: capabilities, tool lists and task-augmented calls ----------------------
    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method == "tools/call":
            return await self._call(ctx, call_next)
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        if ctx.method == "initialize" and result.get("protocolVersion") == LEGACY:
            capabilities = result.setdefault("capabilities", {})
            capabilities["tasks"] = TASK_CAPABILITY
        elif ctx.method == "tools/list" and ctx.protocol_version == LEGACY:
            for tool in result.get("tools", []):
                if tool.get("name") in self.finals:
                    tool["execution"] = dict(TASK_SUPPORT)
        return result

    async def _call(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        name = params.get("name")
        legacy = ctx.protocol_version == LEGACY and params.get("task") is not None
        if legacy and name not in self.finals:
            raise _error(
                METHOD_NOT_FOUND,
                f'tool "{name}" does not support task-augmented execution '
                "(execution.taskSupport is forbidden); call it without `task`",
            )
        handle = (
            ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
            and name == "run_task_template"
            and _declared(ctx)
        )
        result = await call_next(ctx)
        if not (legacy or handle) or not isinstance(result, dict) or result.get("isError"):
            return result
        answer = result.get("structuredContent") or {}
        if answer.get("status") != "queued" or not isinstance(answer.get("runId"), str):
            return result  # a sync answer (2026-07-28 decides per run): as today
        row = await self.state.manager.row(answer["runId"])
        if legacy:
            self._watch(ctx, row.run_id)
            return {"task": self._legacy(row)}
        return {**modern_task(row, None), "resultType": "task"}

    # -- reading a caller's task ----------------------------------------------------------------
    async def owned(self, ctx: ServerRequestContext[Any, Any], task_id: str) -> RunRow:
        """The run of this task id, when it is the requester's; else a protocol error that
        says the same for an unknown id and another caller's."""
        try:
            return await self.state.manager.row(task_id, self.state.principal_of(ctx.request))
        except TaskplateError:
            raise _error(INVALID_PARAMS, f"no task {task_id!r} of this caller") from None

    def _legacy(self, row: RunRow) -> dict[str, Any]:
        return legacy_task(row, self.state.task_asks.asking(row.run_id))

    async def final(self, row: RunRow) -> dict[str, Any]:
        final = self.finals.get(row.template_id, self.finals["run_task_template"])
        answer = await final(self.state, row.run_id)
        return answer.model_dump(by_alias=True, mode="json", exclude_none=True)

    # -- the request handlers ---------------------------------------------------------------------
    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> dict[str, Any]:
        row = await self.owned(ctx, params.task_id)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return await self._detailed(row)
        return self._legacy(row)

    async def _detailed(self, row: RunRow) -> dict[str, Any]:
        """A 2026-07-28 task: its open questions while it waits, its answer once ended."""
        required = self.state.inbox.input_required(row.run_id)
        inputs = None
        if required is not None and required.input_requests:
            inputs = {
                key: request.model_dump(by_alias=True, mode="json", exclude_none=True)
                for key, request in required.input_requests.items()
            }
        task = modern_task(row, inputs)
        if RunStatus(row.status).terminal and task["status"] != "cancelled":
            final = await self.final(row)
            if task["status"] == "completed":
                task["result"] = final
            else:
                body: dict[str, Any] = final.get("structuredContent") or {}
                error: dict[str, Any] = (
                    body["error"] if isinstance(body.get("error"), dict) else body
                )
                task["error"] = {
                    "code": RUN_FAILED,
                    "message": str(error.get("message") or error.get("error") or "the run failed"),
                    "data": {
                        "errorCode": error.get("errorCode") or error.get("code"),
                        "result": final,
                    },
                }
        return task

    async def result(
        self, ctx: ServerRequestContext[Any, Any], params: TaskParams
    ) -> dict[str, Any]:
        """tasks/result (2025-11-25): waits for the run's end, then its tool's own answer; the
        task's questions are asked on it meanwhile."""
        row = await self.owned(ctx, params.task_id)
        with self.state.task_asks.awaiting_result(row.run_id, ctx.session, ctx.request_id):
            await self.state.manager.wait(row.run_id)  # meanwhile the task's questions ride it
        answer = await self.final(await self.state.manager.row(row.run_id))
        meta = answer.setdefault("_meta", {})
        meta[RELATED_TASK] = {"taskId": row.run_id}
        return answer

    async def listing(
        self, ctx: ServerRequestContext[Any, Any], params: ListParams
    ) -> dict[str, Any]:
        """The requester's own tasks (an operator's: all), newest first, a page at a time: one
        store query filtered by its principal, after the run its cursor names."""
        principal = self.state.principal_of(ctx.request)
        last = None if params.cursor is None else await self._after(params.cursor, principal)
        rows = await self.state.manager.rows_before(principal, last, LIST_PAGE + 1)
        tasks = [self._legacy(row) for row in rows[:LIST_PAGE]]
        if len(rows) > LIST_PAGE:
            return {"tasks": tasks, "nextCursor": cursor_after(rows[LIST_PAGE - 1].run_id)}
        return {"tasks": tasks}

    async def _after(self, cursor: str, principal: Principal) -> RunRow:
        """The task a cursor names: a cursor this server made (its form checked before any
        store work), naming one of the caller's own tasks; else -32602."""
        run_id, row = read_cursor(cursor), None
        if run_id is not None:
            with contextlib.suppress(TaskplateError):
                row = await self.state.manager.row(run_id, principal)
        if row is None:
            raise _error(INVALID_PARAMS, "not a tasks/list cursor of this server")
        return row

    async def cancel(
        self, ctx: ServerRequestContext[Any, Any], params: TaskParams
    ) -> dict[str, Any]:
        row = await self.owned(ctx, params.task_id)
        if RunStatus(row.status).terminal:
            raise _error(
                INVALID_PARAMS,
                f"cannot cancel task {row.run_id}: it already ended ({row.status})",
            )
        await self.state.manager.cancel(row.run_id, force=True)
        with anyio.move_on_after(CANCEL_WAIT_S):  # answered as cancelled once it has stopped
            await self.state.manager.wait(row.run_id)
        row = await self.state.manager.row(row.run_id)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return {}
        return self._legacy(row)

    async def update(
        self, ctx: ServerRequestContext[Any, Any], params: UpdateParams
    ) -> dict[str, Any]:
        """tasks/update (2026-07-28): the answers to the task's open questions."""
        row = await self.owned(ctx, params.task_id)
        try:
            await self.state.inbox.answer(self.state.manager, row.run_id, params.input_responses)
        except TaskplateError as error:
            raise _error(INVALID_PARAMS, error.message) from None
        return {}

    def methods(self) -> list[MethodBinding]:
        both = frozenset({LEGACY, *MODERN_PROTOCOL_VERSIONS})
        legacy, modern = frozenset({LEGACY}), frozenset(MODERN_PROTOCOL_VERSIONS)
        return [
            MethodBinding("tasks/get", TaskParams, self.get, both),
            MethodBinding("tasks/result", TaskParams, self.result, legacy),
            MethodBinding("tasks/list", ListParams, self.listing, legacy),
            MethodBinding("tasks/cancel", TaskParams, self.cancel, both),
            MethodBinding("tasks/update", UpdateParams, self.update, modern),
        ]

    # -- status notifications (2025-11-25) -----------------------------------------------------
    def _watch(self, ctx: ServerRequestContext[Any, Any], run_id: str) -> None:
        watchers = self.state.watchers
        if watchers is not None and run_id not in self._watched:
            self._watched.add(run_id)
            watchers.start_soon(self._notify, ctx.session, run_id)

    async def _notify(self, session: Any, run_id: str) -> None:
        """Sends the task's status each time it changes, until it ends."""
        sent: tuple[str, str | None] | None = None
        try:
            while True:
                row = await self.state.manager.row(run_id)
                task = self._legacy(row)
                if (task["status"], task.get("statusMessage")) != sent:
                    sent = (task["status"], task.get("statusMessage"))
                    await session.send_notification(_StatusNote(params=task))
                if RunStatus(row.status).terminal:
                    return
                await self.state.manager.until_ended(run_id, WATCH_S)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, TaskplateError):
            return  # the client left, or the run is gone: nobody to tell
        except Exception:  # a notification is a courtesy: it never takes the server down
            log.exception("status notifications of task %s stopped", run_id)
        finally:
            self._watched.discard(run_id)


class TasksExtension(Extension):
    """The extension `io.modelcontextprotocol/tasks` as the SDK applies one: advertised in the
    capabilities, its methods served (the 2025-11-25 ones at that version only)."""

    identifier = EXTENSION

    def __init__(self, tasks: Tasks) -> None:
        self.tasks = tasks

    def methods(self) -> list[MethodBinding]:
        return self.tasks.methods()
