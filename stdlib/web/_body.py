"""An HTTP answer's body read within a size limit, decoded as it comes (content-encodings with
bounds of their own), and a failed request said in our words. Knows no URL policy and no
hosts: the client (_client.py) asks.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx

from taskplate.browser import too_large
from taskplate.contract import ErrorCode, TaskplateError

from ._decoding import Decoding, DecodingError

if TYPE_CHECKING:
    from taskplate.browser import HostThrottle

log = logging.getLogger("taskplate.stdlib")


@dataclass
class Body:
    """An HTTP answer read within the size limit."""

    url: str
    status: int
    content_type: str
    data: bytes
    headers: httpx.Headers
    # the host asked to be left alone a while (Retry-After), or the request waited for it
    notes: list[str] = field(default_factory=list)


async def read_body(response: httpx.Response, url: str, max_bytes: int) -> list[bytes]:
    """The body as it comes, decoded here (not by httpx, whose decoders have no bound) and
    refused once more than `max_bytes` came, or decoded, so far."""
    chunks: list[bytes] = []
    came = 0
    try:
        decoding = Decoding(response.headers.get("content-encoding", ""), max_bytes)
        async for raw in response.aiter_raw():
            came += len(raw)
            chunks.extend(decoding.feed(raw))
            if decoding.over or came > max_bytes:
                raise too_large(url, max_bytes)
    except DecodingError as exc:
        chunks.clear()
        raise TaskplateError(
            ErrorCode.NAVIGATION_FAILED,
            f"could not read {url}: {exc}",
            "The site sent a broken answer; try again later, or leave it out.",
            {"url": url, "contentEncoding": response.headers.get("content-encoding", "")},
        ) from None
    except BaseException:
        # What was read goes now (above too): an error's traceback holds this frame for as
        # long as the error is kept (a run keeps its steps' errors), and with it up to max_bytes.
        chunks.clear()
        raise
    return chunks


# What a failed plain-HTTP request says, in our words: httpx's text is Python's (an exception's
# name, an errno's message, h11's complaint), and no caller sees that.
_FAILURES: tuple[tuple[type[httpx.HTTPError], str], ...] = (
    (httpx.ProxyError, "the proxy refused the request"),
    (httpx.ConnectError, "no connection could be made to the site"),
    (httpx.ReadError, "the connection broke while the answer was read"),
    (httpx.WriteError, "the connection broke while the request was sent"),
    (httpx.RemoteProtocolError, "the site's answer is not valid HTTP"),
    (httpx.LocalProtocolError, "the request could not be sent as valid HTTP"),
    (httpx.UnsupportedProtocol, "the URL's scheme is not http or https"),
    (httpx.TooManyRedirects, "it redirects too many times"),
    (httpx.DecodingError, "its body is not what its Content-Encoding says"),
)


def failure(exc: httpx.HTTPError) -> str:
    """Why a request failed, for its caller (the log keeps httpx's own text)."""
    log.info("plain HTTP request failed: %s: %s", type(exc).__name__, exc)
    if "CERTIFICATE_VERIFY_FAILED" in str(exc):  # OpenSSL's code: ours to name, not its text
        return "the site's TLS certificate was not accepted (CERTIFICATE_VERIFY_FAILED)"
    if isinstance(exc, httpx.ConnectError) and _tls(exc):
        return "the TLS handshake with the site failed"
    return next((said for kind, said in _FAILURES if isinstance(exc, kind)), "the request failed")


def _tls(exc: BaseException) -> bool:
    """Whether an ssl error is among the causes of `exc`."""
    import ssl

    seen: BaseException | None = exc
    for _ in range(10):  # a chain is short; a cycle is not followed for ever
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


async def asked_again(
    throttle: HostThrottle,
    url: str,
    request: Callable[..., Awaitable[Body]],
    max_bytes: int,
) -> Body:
    """A polite GET, asked again after a 429 or 503's Retry-After as the host's pace allows
    (`HostThrottle.asking`); the last answer, with the warnings of every one."""

    async def ask() -> tuple[Body, int, str | None, list[str]]:
        body = await request(url, max_bytes, polite=True)
        return body, body.status, body.headers.get("retry-after"), body.notes

    body, notes = await throttle.asking(url, ask)
    body.notes = notes
    return body
