"""A document's answer held to a size bound before the page sees any of it, as plain HTTP holds
it (maxBodyBytes): a 10 KB zstd answer that expands to 100 MB of markup never reaches the renderer.

Works on an answer paused by the tab's request interception (_guard.py); knows no URL policy.
"""

from __future__ import annotations

import base64
import contextlib
from typing import Any

from playwright.async_api import CDPSession

DEFAULT_MAX_BODY_BYTES = 10_000_000  # read_page's and the http engine's default
# One IO.read. Each piece passes through Playwright's Node driver as a base64 string; kept under
# V8's large-object size (about 128 KB) it dies young there, where 1 MB pieces piled up in the
# driver's old space until a full collection: the markup-bomb test's tree peaked 210 MB with
# 1 MB pieces and 135-156 MB with these, loaded or not.
READ_BYTES = 1 << 16
# An answer without a body the page reads: nothing to bound, let through as it is.
_NO_BODY = frozenset({204, 205, 304})
# What no longer holds of a body handed over decoded.
_DROPPED = frozenset({"content-encoding", "content-length", "transfer-encoding"})


async def let_through(cdp: CDPSession, event: dict[str, Any], limit: int) -> bool:
    """Let the paused answer go on to the page when its body, decoded, is at most `limit`
    bytes; else fail it before the page sees a byte (False).

    An answer that says its size (no Content-Encoding, a Content-Length) goes on untouched, or
    fails at once when over; any other (compressed, or of unsaid length) is read here, decoded
    by Chromium a piece at a time, and given to the page whole once it ended within the limit.
    Counting Chromium's own decoding, not the wire's, bounds every encoding it reads alike."""
    request = {"requestId": event["requestId"]}
    status = int(event.get("responseStatusCode") or 0)
    headers = event.get("responseHeaders") or []
    named = {h["name"].lower(): h["value"].strip() for h in headers}
    if status in _NO_BODY or 300 <= status < 400:
        await cdp.send("Fetch.continueRequest", request)
        return True
    length = named.get("content-length", "")
    said = length.isascii() and length.isdigit()
    if said and named.get("content-encoding", "identity").lower() == "identity":
        if int(length) > limit:
            await _fail(cdp, request)
            return False
        await cdp.send("Fetch.continueRequest", request)
        return True
    try:
        stream = (await cdp.send("Fetch.takeResponseBodyAsStream", request))["stream"]
    except Exception:
        # An answer Chromium will not hand over (none seen here): it goes on as it is rather
        # than hang the page's load; the renderer reads it unbounded, as before.
        await cdp.send("Fetch.continueRequest", request)
        return True
    body = await _read(cdp, stream, limit)
    if body is None:
        await _fail(cdp, request)
        return False
    kept = [h for h in headers if h["name"].lower() not in _DROPPED]
    answer = {
        **request,
        "responseCode": status,
        "responseHeaders": [*kept, {"name": "Content-Length", "value": str(len(body))}],
        "body": base64.b64encode(body).decode("ascii"),
    }
    if event.get("responseStatusText"):
        answer["responsePhrase"] = event["responseStatusText"]
    await cdp.send("Fetch.fulfillRequest", answer)
    return True


async def _read(cdp: CDPSession, stream: str, limit: int) -> bytes | None:
    """The body, decoded, while it is at most `limit` bytes; None past it (the read stops)."""
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            piece = await cdp.send("IO.read", {"handle": stream, "size": READ_BYTES})
            data = piece.get("data", "")
            chunk = base64.b64decode(data) if piece.get("base64Encoded") else data.encode()
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            if piece.get("eof"):
                return b"".join(chunks)
    finally:
        chunks.clear()
        with contextlib.suppress(Exception):
            await cdp.send("IO.close", {"handle": stream})


async def _fail(cdp: CDPSession, request: dict[str, str]) -> None:
    await cdp.send("Fetch.failRequest", {**request, "errorReason": "BlockedByClient"})
