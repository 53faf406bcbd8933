"""The MCP client's model as the run's `Sampler`: `sampling/createMessage` to the client that
started the run, while it is connected. Never falls back to another model on its own (the run
manager chooses the [llm] endpoint instead when `can_sample` says no).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.jsonrpc import CONNECTION_CLOSED
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib import Sampled, SamplingRequest

# A client may show the request to its user before its model answers.
SAMPLING_TIMEOUT_S = 300.0

_UNSUPPORTED_HINT = (
    "Use an MCP client that supports sampling (sampling/createMessage requests over the "
    "initialize handshake, or the input requests of input_required results on 2026-07-28), "
    "name an OpenAI-compatible endpoint in the [llm] table of the server's taskplate.toml, "
    "or read the page with `extract` and selectors instead."
)


def _disconnected() -> TaskplateError:
    return TaskplateError(
        ErrorCode.LLM_UNAVAILABLE,
        "the MCP client that started this run has disconnected, so its model cannot be asked",
        "Run it again from a client that supports sampling and stays connected until the run "
        "ends (or run it synchronously).",
    )


def create_message(request: SamplingRequest) -> types.CreateMessageRequest:
    """The `sampling/createMessage` request for one question (a server request on the
    handshake protocols, an input request of an `input_required` result on 2026-07-28)."""
    return types.CreateMessageRequest(
        params=types.CreateMessageRequestParams(
            messages=[
                types.SamplingMessage(
                    role="assistant" if m.role == "assistant" else "user",
                    content=types.TextContent(type="text", text=m.text),
                )
                for m in request.messages
            ],
            system_prompt=request.system,
            max_tokens=request.max_tokens,
            include_context="none",
        )
    )


def answer_text(answer: types.CreateMessageResult) -> Sampled:
    """The model's text and name, or LLM_OUTPUT_INVALID when it answered with something else."""
    content = answer.content
    if not isinstance(content, types.TextContent):
        raise TaskplateError(
            ErrorCode.LLM_OUTPUT_INVALID,
            f"the client's model answered with {getattr(content, 'type', 'non-text')} content, "
            "not text",
            "Use a client whose model answers sampling requests with text.",
        )
    return Sampled(content.text, "client", answer.model)


class ClientSampler:
    """Asks the connected client's model. While the tool call that started the run is open, the
    request rides that call (on streamable HTTP: its response stream); afterwards (an async
    run) the connection's own channel, which exists only while the client stays connected."""

    def __init__(self, ctx: Context[Any], timeout_s: float = SAMPLING_TIMEOUT_S) -> None:
        self.session = ctx.session
        self.request_id = ctx.request_id
        self.timeout_s = timeout_s

    def can_sample(self) -> bool:
        return self._refusal() is None

    def _refusal(self) -> TaskplateError | None:
        if self.session.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return TaskplateError(
                ErrorCode.SAMPLING_UNSUPPORTED,
                f"this connection speaks MCP {self.session.protocol_version}, "
                "which has no server-to-client sampling requests",
                _UNSUPPORTED_HINT,
            )
        wanted = types.ClientCapabilities(sampling=types.SamplingCapability())
        if not self.session.check_client_capability(wanted):
            return TaskplateError(
                ErrorCode.SAMPLING_UNSUPPORTED,
                "the MCP client did not declare the sampling capability, so llm_extract "
                "cannot ask its model",
                _UNSUPPORTED_HINT,
            )
        return None

    async def sample(self, request: SamplingRequest) -> Sampled:
        refused = self._refusal()
        if refused is not None:
            raise refused
        message = create_message(request)
        in_call = self.session.can_send_request
        metadata = ServerMessageMetadata(related_request_id=self.request_id) if in_call else None
        try:
            with anyio.fail_after(self.timeout_s):
                answer = await self.session.send_request(
                    message, types.CreateMessageResult, metadata=metadata
                )
        except TimeoutError:
            raise TaskplateError(
                ErrorCode.LLM_UNAVAILABLE,
                f"the MCP client did not answer the sampling request within {self.timeout_s:g} s",
                "Check that the client's user approved the request and its model is reachable, "
                "then run again.",
            ) from None
        except NoBackChannelError:
            raise TaskplateError(
                ErrorCode.LLM_UNAVAILABLE,
                "the MCP client that started this run can no longer be asked (its call ended "
                "and the connection has no channel for server requests)",
                "Run the template synchronously (options.mode: sync), or keep the client "
                "connected with a standalone stream while the run lasts.",
            ) from None
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                raise _disconnected() from None
            raise TaskplateError(
                ErrorCode.LLM_UNAVAILABLE,
                f"the MCP client refused the sampling request: {exc.message}",
                "The client's user or policy declined, or its model failed; approve the "
                "request or check the client's model, then run again.",
                {"clientError": {"code": exc.code, "message": exc.message}},
            ) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            raise _disconnected() from None
        return answer_text(answer)
