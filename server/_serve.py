"""Serving: the run manager's life around the MCP server, on stdio or streamable HTTP (with its
bearer tokens and Host/Origin checks). Never serves a non-loopback address unguarded by mistake.
"""

from __future__ import annotations

import logging

import anyio
import uvicorn
from starlette.routing import Mount

from taskplate.dsl import TrustLevel
from taskplate.interpreter import RunManager

from ._app import build_server
from ._auth import HttpSecurity
from ._http import answer_malformed
from ._stdio import run_stdio
from ._ui import UiAccess, ui_app

log = logging.getLogger("taskplate.serve")


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
) -> None:
    security = security or HttpSecurity()
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    async with manager.running():
        http = transport != "stdio"
        server, _ = build_server(
            manager, trust, security.auth(url) if http else None, remote_save=remote_save
        )
        for path, diagnostics in manager.library.rejected.items():
            log.warning(
                "template %s is not served (%d problems; run dsl validate)", path, len(diagnostics)
            )
        if not http:
            await run_stdio(server)
            return
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
        config = uvicorn.Config(app, host=host, port=port, log_level="info")
        await uvicorn.Server(config).serve()


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
) -> None:
    anyio.run(serve, manager, transport, host, port, trust, security, remote_save, ui, ui_remote)
