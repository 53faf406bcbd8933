"""Plain HTTP kept in a case's recording and served from it (`dsl record`, `dsl test`): every
exchange of a run's web client (fetch, robots.txt, sitemaps) as a HAR entry beside the
browser's, and, offline, each request answered by the recorded exchange (the same request made
again gets the next one recorded for it); a request the recording does not hold never reaches
the network.

Wraps the web client's transport (`WebConfig.wrap`); knows no cases or templates.
"""

from __future__ import annotations

import base64
import time
from datetime import UTC, datetime
from typing import Any

import httpx

from taskplate.browser import RecordedAnswers, response_body

HTTP_ENGINE = "http"  # an entry's `_taskplate` field: read by the web client, not the browser


def _pairs(headers: httpx.Headers) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.multi_items()]


class HttpRecording:
    """Records every exchange of the transports it wraps, in the order they started."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def wrap(self, inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        return _Recording(inner, self.entries)


class _Recording(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, entries: list[dict[str, Any]]) -> None:
        self.inner, self.entries = inner, entries

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        started, clock = datetime.now(UTC), time.monotonic()
        body = await request.aread()
        response = await self.inner.handle_async_request(request)
        raw = await _raw(response)
        request_entry: dict[str, Any] = {
            "method": request.method,
            "url": str(request.url),
            "httpVersion": "HTTP/1.1",
            "headers": _pairs(request.headers),
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": len(body),
        }
        if body:
            request_entry["postData"] = {
                "mimeType": request.headers.get("content-type", ""),
                "text": body.decode("utf-8", "replace"),
            }
        self.entries.append(
            {
                "startedDateTime": started.isoformat().replace("+00:00", "Z"),
                "time": round((time.monotonic() - clock) * 1000, 3),
                "request": request_entry,
                "response": {
                    "status": response.status_code,
                    "statusText": response.reason_phrase,
                    "httpVersion": "HTTP/1.1",
                    "headers": _pairs(response.headers),
                    "cookies": [],
                    "content": {
                        "size": len(raw),
                        "mimeType": response.headers.get("content-type", ""),
                        "text": base64.b64encode(raw).decode("ascii"),
                        "encoding": "base64",
                    },
                    "redirectURL": response.headers.get("location", ""),
                    "headersSize": -1,
                    "bodySize": len(raw),
                },
                "cache": {},
                "timings": {"send": 0, "wait": 0, "receive": 0},
                "_taskplate": HTTP_ENGINE,
            }
        )
        # A stream, not content: the client reads answers raw and decodes them itself.
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=httpx.ByteStream(raw),
            request=request,
        )


async def _raw(response: httpx.Response) -> bytes:
    """The body as it came (still compressed, as its headers say): read from the stream, or,
    for an answer made whole in memory (already read), from the bytes it was made with."""
    if response.is_stream_consumed:
        return b"".join([chunk async for chunk in response.stream])  # type: ignore[union-attr]
    try:
        return b"".join([chunk async for chunk in response.aiter_raw()])
    finally:
        await response.aclose()


class HttpReplay:
    """Answers from the recording's plain-HTTP exchanges; anything else fails to connect."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.answers = RecordedAnswers(e for e in entries if e.get("_taskplate") == HTTP_ENGINE)

    def wrap(self, inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        return _Replay(self.answers)


class _Replay(httpx.AsyncBaseTransport):
    def __init__(self, answers: RecordedAnswers) -> None:
        self.answers = answers

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        key = RecordedAnswers.key(request.method, str(request.url), await request.aread())
        answer = self.answers.next(key)
        if answer is None:
            raise httpx.ConnectError(
                f"{request.method} {request.url} is not in the recording", request=request
            )
        headers = [(h["name"], h["value"]) for h in answer.get("headers", [])]
        body = httpx.ByteStream(response_body(answer))  # read raw, as a network answer is
        return httpx.Response(answer["status"], headers=headers, stream=body, request=request)
