"""The stdio transport, answering what the SDK's reader drops: a line that is not JSON, nests
deeper than its parser takes, or is no JSON-RPC message gets the JSON-RPC error it calls for.

Everything else is the SDK's own stdio transport, untouched.
"""

from __future__ import annotations

import contextvars
import json
import logging
from types import TracebackType
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError
from pydantic import ValidationError

log = logging.getLogger("taskplate.serve")
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


MAX_READ_DEPTH = 1000  # deeper than this, a line is not read at all: a parse error


def _depth(line: str) -> int:
    """How deep a JSON text nests its arrays and objects (strings skipped), without parsing it."""
    depth = deepest = 0
    in_string = escaped = False
    for char in line:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def malformed(line: str, error: ValidationError) -> JSONRPCError:
    """The answer to a line the SDK could not read as a JSON-RPC message (JSON-RPC 2.0 §5.1)."""
    parse_failed = any(e["type"] == "json_invalid" for e in error.errors())
    too_deep = any("recursion" in e["msg"] for e in error.errors())
    unread = _depth(line) > MAX_READ_DEPTH  # the same verdict on every Python, whatever json takes
    message = None
    if not unread:
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
    request_id = message.get("id") if isinstance(message, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    if message is None:
        code, text = PARSE_ERROR, "Parse error: the message is not valid JSON"
        if too_deep or unread:
            text = "Parse error: the message nests deeper than this server reads"
    elif parse_failed:
        code, text = INVALID_REQUEST, "Invalid Request: the message nests too deep"
    elif not isinstance(message, dict) or not isinstance(message.get("method"), str):
        code, text = INVALID_REQUEST, "Invalid Request: a request needs a string method"
    else:
        code, text = INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=text))


class AnsweringReadStream:
    """The SDK's read stream, minus malformed lines: those are answered on the write stream."""

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception], write: WriteStream[SessionMessage]
    ) -> None:
        self.inner = inner
        self.write = write

    @property
    def last_context(self) -> contextvars.Context | None:
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = await self.inner.receive()
            line = _raw_line(item)
            if line is None:
                return item
            assert isinstance(item, ValidationError)
            answer = malformed(line, item)
            log.warning("answered a malformed message with %d", answer.error.code)
            await self.write.send(SessionMessage(answer))

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> AnsweringReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


def _raw_line(item: Any) -> str | None:
    """The line behind a parse failure of the SDK's reader, or None for anything else."""
    if not isinstance(item, ValidationError):
        return None
    errors = item.errors()
    if not errors:
        return ""
    if isinstance(errors[0].get("input"), str) and errors[0]["type"] == "json_invalid":
        return str(errors[0]["input"])
    # parsed, but no message: the whole value is the input of a top-level or a missing-field error
    whole = [
        e for e in errors if len(e["loc"]) <= 1 or (e["type"] == "missing" and len(e["loc"]) == 2)
    ]
    return json.dumps((whole or errors)[0].get("input"), default=str)


async def run_stdio(server: MCPServer) -> None:
    lowlevel = server._lowlevel_server  # MCPServer offers no other way to give it streams
    async with stdio_server() as (read, write):
        await lowlevel.run(
            AnsweringReadStream(read, write), write, lowlevel.create_initialization_options()
        )
