"""Serving: the run manager's life around the MCP server, on stdio or streamable HTTP."""

from __future__ import annotations

import logging

import anyio

from taskplate.dsl import TrustLevel
from taskplate.interpreter import RunManager

from ._app import build_server

log = logging.getLogger("taskplate.serve")


async def serve(
    manager: RunManager,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    trust: TrustLevel = TrustLevel.REMOTE,
) -> None:
    async with manager.running():
        server, _ = build_server(manager, trust)
        for path, diagnostics in manager.library.rejected.items():
            log.warning(
                "template %s is not served (%d problems; run dsl validate)", path, len(diagnostics)
            )
        if transport == "stdio":
            await server.run_stdio_async()
        else:
            log.info("serving MCP on http://%s:%d/mcp (HTTP callers are %s)", host, port, trust)
            await server.run_streamable_http_async(host=host, port=port)


def run(manager: RunManager, transport: str, host: str, port: int, trust: TrustLevel) -> None:
    anyio.run(serve, manager, transport, host, port, trust)
