"""Live connections to the configured MCP servers, through the `mcp` SDK's own client (stdio
or streamable HTTP): start, list, call, restart after a crash, close. One owner task each.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

from taskplate.contract import ErrorCode, TaskplateError, valid_unicode

from ._config import ProviderConfig
from ._lock import ServerListing, ToolInfo

log = logging.getLogger("taskplate.providers")
RESTART_BACKOFF_S = 2.0


def _cause(exc: BaseException) -> str:
    """The innermost useful message of an error (the SDK wraps them in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text != type(exc).__name__ else text


def _read_again(failure: Exception) -> Any:
    """A message the SDK could not read because its JSON escapes a lone UTF-16 surrogate
    (`"\\ud800"`: valid JSON, not valid Unicode), read with the surrogate replaced; else the
    failure as it was. Text from a provider is made valid where it enters, as a page's is."""
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter
    from pydantic import ValidationError

    if not isinstance(failure, ValidationError):
        return failure
    line = next((e.get("input") for e in failure.errors() if e.get("type") == "json_invalid"), None)
    if not isinstance(line, str):
        return failure
    try:
        message = valid_unicode(json.loads(line))
        return SessionMessage(jsonrpc_message_adapter.validate_python(message, by_name=False))
    except (ValueError, RecursionError):
        return failure


@asynccontextmanager
async def _valid_text(transport: Any) -> AsyncIterator[tuple[Any, Any]]:
    """The provider's transport, with each message it could not read given a second reading."""
    async with transport as (read, write):
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            async with send:
                async for item in read:
                    await send.send(_read_again(item) if isinstance(item, Exception) else item)

        async with anyio.create_task_group() as group, receive:
            group.start_soon(relay)
            yield receive, write
            group.cancel_scope.cancel()


def _client(config: ProviderConfig, stack: AsyncExitStack) -> Any:
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    if config.command:
        params = StdioServerParameters(
            command=config.command[0],
            args=list(config.command[1:]),
            env=dict(config.env) or None,
            cwd=config.cwd,
        )
        return Client(_valid_text(stdio_client(params, errlog=sys.stderr)), mode="legacy")
    from mcp.client.streamable_http import streamable_http_client

    from ._sdk import create_mcp_http_client

    headers = {}
    if config.token_env:
        token = os.environ.get(config.token_env)
        if not token:
            raise TaskplateError(
                ErrorCode.PROVIDER_UNAVAILABLE,
                f"provider {config.name}: ${config.token_env} is not set",
                f"Set {config.token_env} to the server's bearer token.",
            )
        headers["Authorization"] = f"Bearer {token}"
    http = create_mcp_http_client(headers=headers)
    stack.push_async_callback(http.aclose)
    assert config.url is not None
    return Client(_valid_text(streamable_http_client(config.url, http_client=http)), mode="legacy")


def _tool_info(tool: Any) -> ToolInfo:
    data = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
    return ToolInfo.from_json(data)


@dataclass
class Connection:
    """One provider: its owner task holds the SDK client open until asked to stop."""

    config: ProviderConfig
    state: str = "stopped"  # stopped, starting, up, failed, crashed, closed
    error: str | None = None
    listing: ServerListing | None = None
    client: Any = None
    started_at: float = 0.0
    _stop: anyio.Event = field(default_factory=anyio.Event)
    _ready: anyio.Event = field(default_factory=anyio.Event)
    _ended: anyio.Event = field(default_factory=anyio.Event)

    @property
    def name(self) -> str:
        return self.config.name

    async def own(self) -> None:
        """The owner task: connect, list, then wait to be stopped; the client closes here."""
        self.state, self.started_at = "starting", time.monotonic()
        limit = self.config.start_timeout_ms / 1000
        try:
            # The deadline covers starting and listing only: lifted once the tools are known.
            with anyio.CancelScope(deadline=anyio.current_time() + limit) as starting:
                await self._serve(starting)
            if starting.cancelled_caught:
                raise TimeoutError
        except TimeoutError:
            self._fail(f"did not start and list its tools within {self.config.start_timeout_ms} ms")
        except TaskplateError as exc:
            self._fail(exc.message)
        except Exception as exc:
            self._fail(_cause(exc))
        finally:
            self.client = None
            if self.state in ("up", "starting"):
                self.state = "closed" if self._stop.is_set() else "crashed"
            self._ready.set()
            self._ended.set()

    async def _serve(self, starting: anyio.CancelScope) -> None:
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(_client(self.config, stack))
            tools = await self._list(client)
            starting.deadline = math.inf
            info = client.server_info
            self.listing = ServerListing(
                self.name,
                getattr(info, "name", "") or "",
                getattr(info, "version", "") or "",
                tools,
                self.config.config_hash,
            )
            self.client, self.state, self.error = client, "up", None
            self._ready.set()
            await self._stop.wait()

    def _fail(self, cause: str) -> None:
        if self.state in ("up", "crashed"):  # it was serving: the connection broke
            self.state, self.error = "crashed", cause
            log.warning("provider %s stopped: %s", self.name, cause)
            return
        self.state, self.error = "failed", cause
        log.warning("provider %s failed to start, its tools are absent: %s", self.name, cause)

    @staticmethod
    async def _list(client: Any) -> tuple[ToolInfo, ...]:
        tools: list[ToolInfo] = []
        cursor: str | None = None
        for _ in range(100):
            page = await client.list_tools(cursor=cursor)
            tools.extend(_tool_info(t) for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tuple(tools)

    async def wait_ready(self) -> None:
        await self._ready.wait()

    async def stop(self) -> None:
        self._stop.set()
        await self._ended.wait()

    def unavailable(self, why: str) -> TaskplateError:
        return TaskplateError(
            ErrorCode.PROVIDER_UNAVAILABLE,
            f"provider {self.name} is unavailable: {why}",
            "It is restarted for the next run; run again. If it keeps failing, see dsl doctor.",
            {"provider": self.name},
        )

    async def call(self, tool: str, args: dict[str, Any]) -> Any:
        client = self.client
        if self.state != "up" or client is None:
            raise self.unavailable(self.error or self.state)
        from mcp.shared.exceptions import MCPError

        try:
            with anyio.fail_after(self.config.call_timeout_ms / 1000):
                return await client.call_tool(tool, args)
        except TimeoutError:
            raise TaskplateError(
                ErrorCode.PROVIDER_TIMEOUT,
                f"{tool} of provider {self.name} did not answer within {self.config.call_timeout_ms} ms",
                "Raise the step's timeoutMs or call_timeout_ms in taskplate.toml.",
                {"provider": self.name},
            ) from None
        except MCPError as exc:
            if self.client is client and _closed(exc):
                self._broken(str(exc))
                raise self.unavailable(str(exc)) from None
            raise TaskplateError(
                ErrorCode.PROVIDER_ERROR,
                f"{tool} of provider {self.name}: {exc}",
                "Check the arguments against the tool's inputSchema (dsl providers sync).",
                {"provider": self.name},
            ) from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            self._broken(_cause(exc))
            raise self.unavailable("its connection closed") from None
        except Exception as exc:
            if _network(exc):  # an HTTP server gone away: connect again for the next run
                self._broken(_cause(exc))
                raise self.unavailable(_cause(exc)) from None
            raise TaskplateError(
                ErrorCode.PROVIDER_ERROR,
                f"{tool} of provider {self.name}: {_cause(exc)}",
                "The server's answer could not be used; see its message.",
                {"provider": self.name},
            ) from None

    def _broken(self, cause: str) -> None:
        if self.state == "up":
            self.state, self.error = "crashed", cause
            log.warning("provider %s stopped answering: %s", self.name, cause)
        self._stop.set()


def _network(exc: BaseException) -> bool:
    """A transport failure (connection refused or reset, protocol broken), by httpx's names."""
    names = {c.__name__ for c in type(exc).__mro__}
    return bool(names & {"TransportError", "NetworkError", "ConnectError", "RemoteProtocolError"})


def _closed(exc: Any) -> bool:
    from mcp_types import CONNECTION_CLOSED

    return getattr(getattr(exc, "error", None), "code", None) == CONNECTION_CLOSED


class Providers:
    """Every configured provider's connection, owned by one task group (`running()`)."""

    def __init__(self, configs: dict[str, ProviderConfig] | None = None) -> None:
        self.configs: dict[str, ProviderConfig] = dict(configs or {})
        self.connections: dict[str, Connection] = {}
        self._tg: anyio.abc.TaskGroup | None = None
        self._restarts: dict[str, float] = {}

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Providers]:
        """The owner tasks live in here; an error of the caller's comes out as itself."""
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                try:
                    yield self
                finally:
                    with anyio.CancelScope(shield=True):
                        await self.close()
                    self._tg = None
        except BaseExceptionGroup as group:
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise

    async def start(self, names: list[str] | None = None) -> None:
        """Start the named providers (default: all) side by side; wait until each is up or
        has failed. A failure leaves that provider's tools absent, never the others'."""
        assert self._tg is not None, "use `async with providers.running()`"
        wanted = [n for n in (names if names is not None else list(self.configs))]
        started = [self._start(n) for n in wanted if n in self.configs]
        for connection in started:
            await connection.wait_ready()

    def _start(self, name: str) -> Connection:
        current = self.connections.get(name)
        if current is not None and current.state in ("starting", "up"):
            return current
        assert self._tg is not None
        connection = Connection(self.configs[name])
        self.connections[name] = connection
        self._restarts[name] = time.monotonic()
        self._tg.start_soon(connection.own)
        return connection

    async def reconfigure(self, configs: dict[str, ProviderConfig]) -> None:
        """Stop providers removed or changed; new configurations start on `start`."""
        for name, connection in list(self.connections.items()):
            if configs.get(name) != connection.config:
                await connection.stop()
                connection.state = "closed"
                del self.connections[name]
        self.configs = dict(configs)

    def listings(self) -> dict[str, ServerListing]:
        return {
            name: c.listing
            for name, c in self.connections.items()
            if c.listing is not None and c.state == "up"
        }

    def failures(self) -> dict[str, str]:
        return {
            name: c.error or c.state
            for name, c in self.connections.items()
            if c.state in ("failed", "crashed")
        }

    async def call(self, provider: str, tool: str, args: dict[str, Any]) -> Any:
        connection = self.connections.get(provider)
        if connection is None or provider not in self.configs:
            raise TaskplateError(
                ErrorCode.PROVIDER_UNAVAILABLE,
                f"provider {provider} is not running",
                "Check taskplate.toml (dsl doctor lists the providers).",
                {"provider": provider},
            )
        try:
            return await connection.call(tool, args)
        except TaskplateError as exc:
            if exc.code is ErrorCode.PROVIDER_UNAVAILABLE:
                self._restart_soon(provider)
            raise

    def _restart_soon(self, name: str) -> None:
        """A crashed or failed provider starts again (in the background) for the next run."""
        connection = self.connections.get(name)
        if self._tg is None or connection is None or connection.state == "closed":
            return
        if connection.state not in ("crashed", "failed"):
            return
        wait = max(0.0, self._restarts.get(name, 0) + RESTART_BACKOFF_S - time.monotonic())
        self._restarts[name] = time.monotonic() + wait

        async def again() -> None:
            await anyio.sleep(wait)
            await connection.stop()
            if self.connections.get(name) is connection and self._tg is not None:
                log.info("restarting provider %s", name)
                self._start(name)

        self._tg.start_soon(again)

    async def close(self) -> None:
        """Every provider closed: stdio children end (the SDK closes stdin, then terminates)."""
        for connection in list(self.connections.values()):
            await connection.stop()
            connection.state = "closed"
