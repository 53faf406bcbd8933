"""An HTTP answer's body read within a size limit, decoded as it comes (content-encodings with
bounds of their own). Knows no URL policy and no hosts: the client (_web.py) asks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx

from taskplate.contract import ErrorCode, TaskplateError

from ._decoding import Decoding, DecodingError

if TYPE_CHECKING:
    from taskplate.browser import HostThrottle


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


def too_large(url: str, max_bytes: int) -> TaskplateError:
    return TaskplateError(
        ErrorCode.NAVIGATION_FAILED,
        f"{url} is larger than the size limit ({max_bytes} bytes)",
        "Raise maxBodyBytes, or skip this page.",
        {"url": url, "maxBodyBytes": max_bytes},
    )


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
