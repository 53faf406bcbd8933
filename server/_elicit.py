"""The MCP client's user, reached through elicitation (`elicitation/create`, form mode): the
run manager's `Asker` for confirmations and hand-overs. Asks only; decides nothing itself."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from taskplate.interpreter import Answer, CannotAsk

# The answer carries no data: accept, decline and cancel say everything.
_NO_FIELDS: dict[str, Any] = {"type": "object", "properties": {}}


class ElicitingAsker:
    """Asks the user of the client that started a run. While the tool call that started it
    is open (sync runs), the question rides that request; afterwards, the connection."""

    via = "elicitation"

    def __init__(self, ctx: Context) -> None:
        context = ctx.request_context
        self.session = context.session
        self.request_id: Any = ctx.request_id
        capabilities = self.session.client_capabilities
        self.declared = capabilities is not None and capabilities.elicitation is not None
        # 2026-07-28 has no server requests: _input_required.QuestionAsker asks there instead
        self.modern = self.session.protocol_version in MODERN_PROTOCOL_VERSIONS

    def call_ended(self) -> None:
        """The tool call returned: later questions go over the connection."""
        self.request_id = None

    def can_ask(self) -> bool:
        return self.declared and not self.modern

    async def ask(self, message: str) -> Answer:
        try:
            result = await self.session.elicit_form(
                message, _NO_FIELDS, related_request_id=self.request_id
            )
        except MCPError as exc:  # no back-channel, or the client refused the request
            raise CannotAsk(str(exc)) from None
        return Answer(result.action)


def asker_for(ctx: Context) -> ElicitingAsker:
    return ElicitingAsker(ctx)
