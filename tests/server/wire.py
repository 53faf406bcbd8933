"""Raw JSON-RPC to `dsl serve`, as any client would speak it: over stdio (one line per message)
and over streamable HTTP (POST, JSON or SSE answers), at a chosen protocol version."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from tests.server.conftest import DSL, env_for

MODERN = "2026-07-28"
CLIENT_INFO = {"name": "raw-test", "version": "1.0"}
ACCEPT = "application/json, text/event-stream"


def envelope(version: str, log_level: str | None = None) -> dict[str, Any]:
    """The per-request `_meta` of protocol versions without a handshake."""
    meta: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    }
    if log_level:
        meta["io.modelcontextprotocol/logLevel"] = log_level
    return meta


class Wire:
    """One connection at one protocol version; `request` answers the JSON-RPC response and
    keeps every notification that came before it in `notes`."""

    version: str
    notes: list[dict[str, Any]]
    next_id: int = 0

    async def send_raw(self, data: bytes) -> list[dict[str, Any]]:
        raise NotImplementedError

    async def request(
        self, method: str, params: dict[str, Any] | None = None, **meta: Any
    ) -> dict[str, Any]:
        self.next_id += 1
        params = dict(params or {})
        if self.version == MODERN:
            params["_meta"] = {**envelope(MODERN), **meta, **params.get("_meta", {})}
        elif meta:
            params["_meta"] = meta
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        for answer in await self.send_raw(json.dumps(message).encode()):
            if answer.get("id") == self.next_id and "method" not in answer:
                return answer
        raise AssertionError(f"no answer to {method}")

    async def notify(self, method: str) -> None:
        await self.send_raw(json.dumps({"jsonrpc": "2.0", "method": method}).encode())

    async def start(self) -> dict[str, Any]:
        """The handshake of the version (initialize + initialized), or server/discover."""
        if self.version == MODERN:
            return await self.request("server/discover")
        answer = await self.request(
            "initialize",
            {"protocolVersion": self.version, "capabilities": {}, "clientInfo": CLIENT_INFO},
        )
        await self.notify("notifications/initialized")
        return answer


class StdioWire(Wire):
    def __init__(self, process: Process, version: str) -> None:
        assert process.stdout is not None and process.stdin is not None
        self.process = process
        self.version = version
        self.notes = []
        self.lines = BufferedByteReceiveStream(process.stdout)

    async def read(self) -> dict[str, Any]:
        line = await self.lines.receive_until(b"\n", 64 * 1024 * 1024)
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(data + b"\n")

    async def send_raw(self, data: bytes) -> list[dict[str, Any]]:
        await self.write(data)
        try:
            message = json.loads(data)
        except ValueError:
            message = None
        if not isinstance(message, dict) or "id" not in message:
            return []  # a notification, or a malformed line: see `answer`
        return [await self.answer()]

    async def answer(self) -> dict[str, Any]:
        """The next response, keeping notifications on the way."""
        while True:
            message = await self.read()
            if "method" in message:
                self.notes.append(message)
                continue
            return message


@asynccontextmanager
async def stdio_wire(home: Any, version: str, *flags: str) -> AsyncIterator[StdioWire]:
    async with await anyio.open_process(
        [DSL, "serve", *flags], env=env_for(home), stderr=None
    ) as process:
        wire = StdioWire(process, version)
        try:
            yield wire
        finally:
            assert process.stdin is not None
            await process.stdin.aclose()
            with anyio.fail_after(20):
                await process.wait()


class HttpWire(Wire):
    def __init__(self, client: httpx2.AsyncClient, url: str, version: str) -> None:
        self.client = client
        self.url = url
        self.version = version
        self.notes = []
        self.session: str | None = None
        self.negotiated: str | None = version if version == MODERN else None
        # a JSON-RPC error answered with HTTP 400 is returned, not failed on (when asked for)
        self.errors_answered = False

    def headers(self) -> dict[str, str]:
        headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
        if self.negotiated:
            headers["MCP-Protocol-Version"] = self.negotiated
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        return headers

    async def post(self, data: bytes, **headers: str) -> httpx2.Response:
        return await self.client.post(self.url, content=data, headers={**self.headers(), **headers})

    async def send_raw(self, data: bytes) -> list[dict[str, Any]]:
        routing = {}
        if self.version == MODERN:  # 2026 routes by headers that must match the body
            body = json.loads(data)
            routing["Mcp-Method"] = body["method"]
            if body["method"] == "tools/call":
                routing["Mcp-Name"] = body["params"]["name"]
            elif body["method"] == "resources/read":  # a resource is named by its uri
                routing["Mcp-Name"] = body["params"]["uri"]
        response = await self.post(data, **routing)
        if response.status_code == 202:
            return []
        if self.errors_answered and response.status_code == 400:
            error: dict[str, Any] = response.json()
            assert "error" in error, response.text
            return [error]
        assert response.status_code == 200, (response.status_code, response.text)
        self.session = response.headers.get("mcp-session-id", self.session)
        messages = parse_body(response)
        self.notes.extend(m for m in messages if "method" in m)
        return messages

    async def start(self) -> dict[str, Any]:
        answer = await super().start()
        if self.version != MODERN:
            self.negotiated = answer["result"]["protocolVersion"]
        return answer


def parse_body(response: httpx2.Response) -> list[dict[str, Any]]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [
            json.loads(line[5:])
            for line in response.text.splitlines()
            if line.startswith("data:") and line[5:].strip()
        ]
    body = response.json()
    return body if isinstance(body, list) else [body]
