"""The stdio transport: the SDK's, with each line looked at before the SDK reads it. A line that
is not JSON, nests deeper than its parser takes, is no JSON-RPC request MCP takes (a wrong id,
no method) gets the JSON-RPC error it calls for, where the SDK would drop it or answer another
code; a lone surrogate escape (`"\\ud800"`) is made valid Unicode (U+FFFD) so the SDK reads the
message. Writing stays the SDK's own. What the start read and answered before the SDK was
loaded (`_front.py`) is read first and answered again through `SdkTakeover` (`_sdk_takeover.py`).
"""

from __future__ import annotations

import contextvars
import io
import logging
import os
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from types import TracebackType
from typing import Any

import anyio
import mcp.types as sdk_types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError, JSONRPCNotification
from pydantic import ValidationError

from taskplate.providers import ReadStream, WriteStream, lowlevel_server

from ._front import Started
from ._jsonrpc import INVALID_REQUEST, error, judged, nests_too_deep, read, request_id, too_deep
from ._sdk_takeover import SdkTakeover

log = logging.getLogger("taskplate.serve")


class Lines:
    """stdin's lines, as the SDK's reader takes them, each kept until its message is looked at:
    the reader turns every line into exactly one message or error, in order."""

    def __init__(self, file: anyio.AsyncFile[str]) -> None:
        self.file = file
        self.pending: deque[str] = deque()

    def __aiter__(self) -> Lines:
        return self

    async def __anext__(self) -> str:
        line = await self.file.readline()
        if not line:
            raise StopAsyncIteration
        self.pending.append(line)
        return line


def answer(message: dict[str, Any]) -> SessionMessage:
    body = message["error"]
    error_data = ErrorData(code=body["code"], message=body["message"])
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=message["id"], error=error_data))


def looked_at(line: str, item: SessionMessage | Exception) -> SessionMessage | Exception:
    """The message of a line, or the JSON-RPC error that answers it (a SessionMessage of a
    JSONRPCError: see `AnsweringReadStream`)."""
    if isinstance(item, SessionMessage):
        if too_deep(line):  # the SDK's parser read it, but the bound is ours (MAX_READ_DEPTH)
            return answer(nests_too_deep())
        if not isinstance(item.message, JSONRPCNotification) or '"id"' not in line:
            return item  # the common case: no second look at the line
        verdict = judged(read(line))  # an id the SDK's parser ignored makes it a request
        return item if verdict is None else answer(verdict)
    if not isinstance(item, ValidationError):
        return item
    got = read(line)
    verdict = judged(got)
    if verdict is not None:
        return answer(verdict)
    if got.cleaned:  # lone surrogates replaced: the SDK reads it now, or says why not
        try:
            message = sdk_types.jsonrpc_message_adapter.validate_json(got.text(), by_name=False)
            return SessionMessage(message)
        except ValidationError as again:
            item = again
    deep = any(e["type"] == "json_invalid" for e in item.errors())
    why = "the message nests too deep" if deep else "not a JSON-RPC 2.0 message"
    return answer(error(INVALID_REQUEST, f"Invalid Request: {why}", request_id(got.value)))


class AnsweringReadStream:
    """The SDK's read stream, minus what `looked_at` answers: those go on the write stream."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        write: WriteStream[SessionMessage],
        lines: Lines,
        handover: SdkTakeover,
    ) -> None:
        self.inner = inner
        self.write = write
        self.lines = lines
        self.handover = handover

    @property
    def last_context(self) -> contextvars.Context | None:
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            received = await self.inner.receive()
            item = looked_at(self.lines.pending.popleft(), received)
            self.handover.saw(item)
            if not (isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCError)):
                return item
            log.warning("answered a malformed message with %d", item.message.error.code)
            await self.write.send(item)

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


class _Prefixed(io.RawIOBase):
    """A file descriptor's bytes, after `prefix` (what the start read of it already)."""

    def __init__(self, prefix: bytes, fd: int) -> None:
        self.prefix, self.fd = prefix, fd

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.prefix:
            size = min(len(buffer), len(self.prefix))
            buffer[:size], self.prefix = self.prefix[:size], self.prefix[size:]
            return size
        data = os.read(self.fd, len(buffer))
        buffer[: len(data)] = data
        return len(data)


@contextmanager
def claimed_stdin(prefix: bytes = b"") -> Iterator[io.TextIOWrapper]:
    """The wire's stdin (after `prefix`, what was read of it already), read from a private copy
    of fd 0 while fd 0 itself reads the null device (as the SDK does when it claims stdin:
    children and stray reads see EOF)."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # never closed: a worker thread may still block on it after the transport ends
    raw = io.BufferedReader(_Prefixed(prefix, private))
    text = io.TextIOWrapper(raw, "utf-8", errors="replace")
    try:
        yield text
    finally:
        os.dup2(private, 0)


@asynccontextmanager
async def streams(
    lines: Lines, started: Started
) -> AsyncIterator[tuple[AnsweringReadStream, SdkTakeover]]:
    async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
        handover = SdkTakeover(write_stream, started)
        yield AnsweringReadStream(read_stream, write_stream, lines, handover), handover


async def run_stdio(
    server: MCPServer, started: Started, warm: Callable[[], Awaitable[None]] | None = None
) -> None:
    """Serve the stream after the start; `warm` runs once the client has the tool list."""
    lowlevel = lowlevel_server(server)  # MCPServer offers no other way to give it streams
    with claimed_stdin(bytes(started.read)) as stdin:
        lines = Lines(anyio.wrap_file(stdin))
        async with (
            streams(lines, started) as (read_stream, write_stream),
            anyio.create_task_group() as tg,
        ):
            if warm is not None:
                tg.start_soon(_warm_when_listed, write_stream, warm)
            options = lowlevel.create_initialization_options()
            await lowlevel.run(read_stream, write_stream, options)
            tg.cancel_scope.cancel()


async def _warm_when_listed(handover: SdkTakeover, warm: Callable[[], Awaitable[None]]) -> None:
    await handover.listed.wait()
    try:
        await warm()
    except Exception as exc:  # the first run starts what could not be started now
        log.warning("could not warm up after the start: %s", exc)
