"""An HTTP answer's body read within a size limit, decoded as it comes (content-encodings with
bounds of their own). Knows no URL policy and no hosts: the client (_web.py) asks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from taskplate.browser import too_large
from taskplate.contract import ErrorCode, TaskplateError

from ._decoding import Decoding, DecodingError


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
