"""The streamable-HTTP endpoint, answering what the SDK answers with the wrong code: a JSON body
that is no JSON-RPC message (a request without a method) gets -32600 Invalid Request.

Sits behind the SDK's auth check, in front of its transport; every other body passes untouched.
"""

from __future__ import annotations

import json
from typing import Any

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

INVALID_REQUEST = -32600


def problem(message: Any) -> str | None:
    """Why a parsed body is no JSON-RPC message, or None when it is one (or a response: the SDK
    judges those)."""
    if isinstance(message, list):
        return "batches are not part of MCP; send one message per request"
    if not isinstance(message, dict):
        return "a message is a JSON object"
    if "result" in message or "error" in message:
        return None
    if not isinstance(message.get("method"), str):
        return "a request needs a string method"
    return None


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
        try:
            parsed = json.loads(body)
        except (ValueError, RecursionError):
            parsed = None  # the SDK answers -32700 itself
        why = problem(parsed) if parsed is not None else None
        if why is not None and await self.security.validate_request(Request(scope), True):
            why = None  # a wrong Host, Origin or Content-Type: the SDK answers that first
        if why is not None:
            request_id = parsed.get("id") if isinstance(parsed, dict) else None
            if not isinstance(request_id, str | int) or isinstance(request_id, bool):
                request_id = None
            answer = {
                "jsonrpc": "2.0",
                "id": request_id,
                "error": {"code": INVALID_REQUEST, "message": f"Invalid Request: {why}"},
            }
            await JSONResponse(answer, status_code=400)(scope, receive, send)
            return
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
