"""The MCP client's user, reached through elicitation (`elicitation/create`, form mode): the
run manager's `Asker` for confirmations and hand-overs. Asks only; decides nothing itself."""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from taskplate.interpreter import Answer, CannotAsk

from ._task_asks import TaskAsks

# The answer carries no data: accept, decline and cancel say everything.
_NO_FIELDS: dict[str, Any] = {"type": "object", "properties": {}}


class ElicitingAsker:
    """Asks the user of the client that started a run. While the tool call that started it
    is open (sync runs), the question rides that request; afterwards, the connection. A run
    started as a 2025-11-25 task (`asks` given) asks through its task instead (`TaskAsks`)."""

    via = "elicitation"

    def __init__(self, ctx: Context, asks: TaskAsks | None = None) -> None:
        self.asks = asks
        self.task_id: str | None = None
        self._task_known = anyio.Event()
        context = ctx.request_context
        self.session = context.session
        self.request_id: Any = ctx.request_id
        capabilities = self.session.client_capabilities
        self.declared = capabilities is not None and capabilities.elicitation is not None
        # 2026-07-28 has no server requests: _input_required.QuestionAsker asks there instead
        self.modern = self.session.protocol_version in MODERN_PROTOCOL_VERSIONS

    def call_ended(self, task_id: str | None = None) -> None:
        """The tool call returned: later questions go over the connection, or through the task
        `task_id` when the run is one."""
        self.request_id = None
        if task_id is not None:
            self.task_id = task_id
            self._task_known.set()

    def can_ask(self) -> bool:
        return self.declared and not self.modern

    async def ask(self, message: str) -> Answer:
        try:
            if self.asks is not None:
                await self._task_known.wait()  # the run may ask before its task was answered
                assert self.task_id is not None
                result = await self.asks.ask(self.task_id, message, _NO_FIELDS, self.session)
            else:
                result = await self.session.elicit_form(
                    message, _NO_FIELDS, related_request_id=self.request_id
                )
        except MCPError as exc:  # no back-channel, or the client refused the request
            raise CannotAsk(str(exc)) from None
        return Answer(result.action)


def asker_for(ctx: Context, asks: TaskAsks | None = None) -> ElicitingAsker:
    return ElicitingAsker(ctx, asks)
