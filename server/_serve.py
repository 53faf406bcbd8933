"""Serving: the run manager's life around the MCP server, on stdio or streamable HTTP (with its
bearer tokens and Host/Origin checks). Never serves a non-loopback address unguarded by mistake.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.routing import Mount
from uvicorn.server import HANDLED_SIGNALS

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.interpreter import DRAIN_S, RunManager

from ._app import build_server
from ._paging import DEFAULT_TOKENS
from .tools import DEFAULT_GROUPS
from .tools.template_tools import DEFAULT_TOOL_TOKENS
from .transports import HttpSecurity, Started, answer_malformed, run_stdio, shares
from .ui import UiAccess, ui_app

log = logging.getLogger("taskplate.serve")

# How long an idle kept-alive HTTP connection stays open, in seconds: longer than a load balancer
# or proxy in front keeps its idle connections to the server (nginx and AWS load balancers 60 s,
# Google's 600 s; HAProxy until `timeout client` ends the client's connection, and its pool of
# shared ones longer), so that the one in front closes first. Shorter (uvicorn's 5 s), the server
# closes a connection as the proxy sends a request on it: the request is lost, and HAProxy closes
# the client's connection without an answer (RemoteProtocolError in the tests behind HAProxy).
KEEP_ALIVE_S = 620
# What a SIGTERM's stop gives HTTP requests still open past the drain's grace (a caller waiting on
# a run that was handed over, a stream of news): then they are cut, so a stop always ends.
REQUESTS_AFTER_DRAIN_S = 10.0


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


@dataclass(frozen=True)
class ServeSettings:
    """How `dsl serve` serves: its options, typed, in one value (the CLI builds it once)."""

    transport: str = "stdio"  # or "streamable-http"
    host: str = "127.0.0.1"
    port: int = 8765
    trust: TrustLevel = TrustLevel.REMOTE  # of loopback HTTP callers
    security: HttpSecurity = field(default_factory=HttpSecurity)  # tokens, Host and Origin
    remote_save: bool = False  # remote callers may save templates
    ui: bool = True  # the runs page under /ui (HTTP)
    ui_remote: bool = False  # callers that are not local see it too
    started: Started | None = None  # what the start on stdio read and answered (`_front`)
    groups: tuple[str, ...] = DEFAULT_GROUPS  # the tool groups served
    template_tools: bool = False  # the templates offered as tools of their own
    answer_tokens: int | None = None  # the most a tool's answer holds (None: DEFAULT_TOKENS)
    tool_tokens: int | None = None  # tools/list's budget (None: DEFAULT_TOOL_TOKENS)
    drain_s: float = DRAIN_S  # SIGTERM: the grace of the items in flight before the hand-over

    @property
    def http(self) -> bool:
        return self.transport != "stdio"

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


async def serve(manager: RunManager, settings: ServeSettings) -> list[int] | None:
    """Serve until the client leaves (stdio) or a signal stops the server (HTTP); answers the
    signals caught, for `run` to raise again once everything is closed (None: HTTP could not
    listen).

    Its first run finds the browser and Markdown conversion warm: on stdio they start once the
    client has the tool list (never before an answer: they would share the cores with it), on
    HTTP (the conversion worker) as the server starts listening."""
    manager.share_runs(shares(settings.security.tokens))  # each token line's share of the runs
    async with manager.running(warm=settings.http):
        server, state = build_server(
            manager,
            settings.trust,
            settings.security.auth(settings.url) if settings.http else None,
            remote_save=settings.remote_save,
            groups=settings.groups,
            template_tools=settings.template_tools,
            answer_tokens=settings.answer_tokens or DEFAULT_TOKENS,
            tool_tokens=settings.tool_tokens or DEFAULT_TOOL_TOKENS,
        )
        async with anyio.create_task_group() as watchers:
            state.watchers = watchers  # the status notifications of tasks (2025-11-25)
            caught = await _serving(server, manager, settings)
            watchers.cancel_scope.cancel()
    return caught


async def _serving(
    server: MCPServer, manager: RunManager, settings: ServeSettings
) -> list[int] | None:
    """What serve does inside the run manager's life: the MCP server on its transport; None
    when it could not listen."""
    for path, diagnostics in manager.rejected_templates().items():
        log.warning(
            "template %s is not served (%d problems; run dsl validate)", path, len(diagnostics)
        )
    if not settings.http:
        await run_stdio(server, settings.started or Started(), manager.warm)
        return []
    host, url, security = settings.host, settings.url, settings.security
    guard = security.transport(host)
    app = server.streamable_http_app(host=host, transport_security=guard)
    answer_malformed(app, guard)
    if settings.ui:  # the runs page, behind the same tokens and Host names
        access = UiAccess(security.tokens, settings.ui_remote, list(guard.allowed_hosts))
        app.router.routes.append(Mount("/ui", app=ui_app(manager, access)))
    log.info(
        "serving MCP on %s/mcp%s (HTTP callers are %s; %s)",
        url,
        f" and the runs page on {url}/ui/" if settings.ui else "",
        settings.trust,
        f"{len(security.tokens)} bearer tokens" if security.tokens else "no tokens",
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=settings.port,
        log_level="info",
        timeout_keep_alive=KEEP_ALIVE_S,
        timeout_graceful_shutdown=int(settings.drain_s + REQUESTS_AFTER_DRAIN_S),
    )
    http_server = _Server(config)
    listened = True
    async with anyio.create_task_group() as draining:
        draining.start_soon(_drain_on_sigterm, http_server, manager, settings.drain_s)
        try:
            await http_server.serve()
        except SystemExit:  # uvicorn could not listen (the port taken): it logged why
            listened = False
        if signal.SIGTERM not in http_server.caught:
            draining.cancel_scope.cancel()  # stopped otherwise: no drain
    log.info("stopping: ending runs, sessions and browsers")
    return http_server.caught if listened else None


async def _drain_on_sigterm(http_server: _Server, manager: RunManager, drain_s: float) -> None:
    """SIGTERM drains the server while uvicorn stops taking connections and ends its requests:
    no run starts here any more, items in flight finish within `drain_s`, and the unfinished
    runs are handed over to the other servers on the store (`RunManager.drain`)."""
    while signal.SIGTERM not in http_server.caught:
        await anyio.sleep(0.1)  # uvicorn's own pace: its signal handler only sets a flag
    log.info("SIGTERM: draining (up to %g s for the items in flight)", drain_s)
    late = await manager.drain(drain_s)
    log.info(
        "drained: every unfinished run handed over to the other servers%s",
        f" ({late} of them past the grace, their items in flight to run again)" if late else "",
    )


def run(manager: RunManager, settings: ServeSettings) -> None:
    """Serve until stopped, then raise the signals that stopped it."""
    caught = anyio.run(serve, manager, settings)
    if caught is None:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"could not listen on {settings.url}: the port is in use or the address is not this"
            " machine's (uvicorn's ERROR line above says which)",
            "Pick another --port, or stop what listens there; or another --host.",
            {"url": settings.url},
        )
    for sig in reversed(caught):  # as uvicorn would, but after the manager has closed
        signal.raise_signal(sig)
