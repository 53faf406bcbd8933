"""The streamable-HTTP endpoint, answering what the SDK answers with the wrong code: a JSON body
that is no JSON-RPC request MCP takes (no method, an id that is no string or integer, a number
too long to read) gets -32600 Invalid Request; a lone surrogate escape is made valid Unicode
(U+FFFD) before the SDK reads the body (server/transports/_jsonrpc.py, shared with stdio).

Sits behind the SDK's auth check, in front of its transport; every other body passes untouched.
"""

from __future__ import annotations

from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._jsonrpc import judged, read


class AnswerMalformed:
    def __init__(self, app: ASGIApp, security: TransportSecuritySettings) -> None:
        self.app = app
        self.security = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, receive, send)  # the client left; the SDK sees it too
                return
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
            if sum(map(len, chunks)) > DEFAULT_MAX_REQUEST_BODY_SIZE:
                await PlainTextResponse("Request body too large", status_code=413)(
                    scope, receive, send
                )
                return
        body = b"".join(chunks)
        got = read(body)
        # a body that is not JSON the SDK answers -32700 itself; one too deep, we do (the bound
        # is ours, MAX_READ_DEPTH, on both transports)
        verdict = judged(got) if got.readable or got.too_deep else None
        if verdict is not None and await self.security.validate_request(Request(scope), True):
            verdict = None  # a wrong Host, Origin or Content-Type: the SDK answers that first
        if verdict is not None:
            await JSONResponse(verdict, status_code=400)(scope, receive, send)
            return
        if got.cleaned:
            body = got.text().encode()
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def answer_malformed(
    app: Starlette, security: TransportSecuritySettings, path: str = "/mcp"
) -> None:
    """Put AnswerMalformed in front of the MCP endpoint (behind its auth check, if any)."""
    for route in app.routes:
        if isinstance(route, Route) and route.path == path:
            guard = route.app
            if isinstance(guard, RequireAuthMiddleware):
                guard.app = AnswerMalformed(guard.app, security)
            else:
                route.app = AnswerMalformed(guard, security)
