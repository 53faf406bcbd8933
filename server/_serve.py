"""Serving: the run manager's life around the MCP server, on stdio or streamable HTTP (with its
bearer tokens and Host/Origin checks). Never serves a non-loopback address unguarded by mistake.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.routing import Mount
from uvicorn.server import HANDLED_SIGNALS

from taskplate.contract import TrustLevel
from taskplate.interpreter import RunManager

from ._app import build_server
from ._auth import HttpSecurity, shares
from ._front import Started
from ._http import answer_malformed
from ._paging import DEFAULT_TOKENS
from ._stdio import run_stdio
from .tools import DEFAULT_GROUPS
from .tools.template_tools import DEFAULT_TOOL_TOKENS
from .ui import UiAccess, ui_app

log = logging.getLogger("taskplate.serve")

# How long an idle kept-alive HTTP connection stays open, in seconds: longer than a load balancer
# or proxy in front keeps its idle connections to the server (nginx and AWS load balancers 60 s,
# Google's 600 s; HAProxy until `timeout client` ends the client's connection, and its pool of
# shared ones longer), so that the one in front closes first. Shorter (uvicorn's 5 s), the server
# closes a connection as the proxy sends a request on it: the request is lost, and HAProxy closes
# the client's connection without an answer (RemoteProtocolError in the tests behind HAProxy).
KEEP_ALIVE_S = 620


class _Server(uvicorn.Server):
    """uvicorn raises the signal that stopped it (SIGTERM, SIGINT) again as it returns, which
    ends the process before the run manager has let go of its runs, sessions and browsers. This
    one keeps the signals it caught in `caught`; `run` raises them once the manager is closed."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in HANDLED_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)

    @property
    def caught(self) -> list[int]:
        return list(self._captured_signals)


async def serve(
    manager: RunManager,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    trust: TrustLevel = TrustLevel.REMOTE,
    security: HttpSecurity | None = None,
    remote_save: bool = False,
    ui: bool = True,
    ui_remote: bool = False,
    started: Started | None = None,
    groups: tuple[str, ...] = DEFAULT_GROUPS,
    template_tools: bool = False,
    answer_tokens: int = DEFAULT_TOKENS,
    tool_tokens: int = DEFAULT_TOOL_TOKENS,
) -> list[int]:
    """Serve until the client leaves (stdio) or a signal stops the server (HTTP); answers the
    signals caught, for `run` to raise again once everything is closed. `started`: what the
    start on stdio read and answered before the SDK was loaded (`_front.start`).

    Its first run finds the browser and Markdown conversion warm: on stdio they start once the
    client has the tool list (never before an answer: they would share the cores with it), on
    HTTP (the conversion worker) as the server starts listening."""
    security = security or HttpSecurity()
    manager.capacity.shares = shares(security.tokens)  # each token line's share of the runs
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    http = transport != "stdio"
    async with manager.running(warm=http):
        server, state = build_server(
            manager,
            trust,
            security.auth(url) if http else None,
            remote_save=remote_save,
            groups=groups,
            template_tools=template_tools,
            answer_tokens=answer_tokens,
            tool_tokens=tool_tokens,
        )
        async with anyio.create_task_group() as watchers:
            state.watchers = watchers  # the status notifications of tasks (2025-11-25)
            caught = await _serving(
                server, manager, transport, url, host, port, trust, security, ui, ui_remote, started
            )
            watchers.cancel_scope.cancel()
    return caught


async def _serving(
    server: MCPServer,
    manager: RunManager,
    transport: str,
    url: str,
    host: str,
    port: int,
    trust: TrustLevel,
    security: HttpSecurity,
    ui: bool,
    ui_remote: bool,
    started: Started | None,
) -> list[int]:
    """What serve does inside the run manager's life: the MCP server on its transport."""
    http = transport != "stdio"
    for path, diagnostics in manager.library.rejected.items():
        log.warning(
            "template %s is not served (%d problems; run dsl validate)", path, len(diagnostics)
        )
    if not http:
        await run_stdio(server, started or Started(), manager.warm)
        return []
    guard = security.transport(host)
    app = server.streamable_http_app(host=host, transport_security=guard)
    answer_malformed(app, guard)
    if ui:  # the runs page, behind the same tokens and Host names
        access = UiAccess(security.tokens, ui_remote, list(guard.allowed_hosts))
        app.router.routes.append(Mount("/ui", app=ui_app(manager, access)))
    log.info(
        "serving MCP on %s/mcp%s (HTTP callers are %s; %s)",
        url,
        f" and the runs page on {url}/ui/" if ui else "",
        trust,
        f"{len(security.tokens)} bearer tokens" if security.tokens else "no tokens",
    )
    config = uvicorn.Config(
        app, host=host, port=port, log_level="info", timeout_keep_alive=KEEP_ALIVE_S
    )
    http_server = _Server(config)
    await http_server.serve()
    log.info("stopping: ending runs, sessions and browsers")
    return http_server.caught


def run(
    manager: RunManager,
    transport: str,
    host: str,
    port: int,
    trust: TrustLevel,
    security: HttpSecurity | None = None,
    remote_save: bool = False,
    ui: bool = True,
    ui_remote: bool = False,
    started: Started | None = None,
    groups: tuple[str, ...] = DEFAULT_GROUPS,
    template_tools: bool = False,
    answer_tokens: int | None = None,
    tool_tokens: int | None = None,
) -> None:
    """Serve until stopped; `answer_tokens` and `tool_tokens` None: the default budgets."""
    caught = anyio.run(
        serve,
        manager,
        transport,
        host,
        port,
        trust,
        security,
        remote_save,
        ui,
        ui_remote,
        started,
        groups,
        template_tools,
        answer_tokens or DEFAULT_TOKENS,
        tool_tokens or DEFAULT_TOOL_TOKENS,
    )
    for sig in reversed(caught):  # as uvicorn would, but after the manager has closed
        signal.raise_signal(sig)
