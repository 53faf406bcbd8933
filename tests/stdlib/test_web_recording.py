"""Plain HTTP recorded and replayed (`dsl record`, `dsl test`): a recorded exchange answers the
same request offline, byte for byte (a compressed body too), a request made twice gets its
answers in the recorded order, and a request the recording lacks never reaches the network."""

from __future__ import annotations

import gzip

import httpx
import pytest

from taskplate.stdlib import HttpRecording, HttpReplay

pytestmark = pytest.mark.anyio


def site(request: httpx.Request) -> httpx.Response:
    site.calls += 1  # type: ignore[attr-defined]
    if request.url.path == "/zipped":
        body = gzip.compress(b"<p>compressed words</p>")
        return httpx.Response(200, headers={"content-encoding": "gzip"}, content=body)
    return httpx.Response(200, text=f"answer {site.calls} to {request.url.path}")  # type: ignore[attr-defined]


async def test_recorded_exchanges_answer_the_same_requests_offline() -> None:
    site.calls = 0  # type: ignore[attr-defined]
    recording = HttpRecording()
    async with httpx.AsyncClient(transport=recording.wrap(httpx.MockTransport(site))) as live:
        first = (await live.get("https://example.org/a")).text
        second = (await live.get("https://example.org/a")).text
        zipped = (await live.get("https://example.org/zipped")).text
    assert (first, second, zipped) == (
        "answer 1 to /a",
        "answer 2 to /a",
        "<p>compressed words</p>",
    )
    assert [e["_taskplate"] for e in recording.entries] == ["http"] * 3
    replay = HttpReplay(recording.entries)
    unused = httpx.MockTransport(lambda r: pytest.fail("the network was asked"))
    async with httpx.AsyncClient(transport=replay.wrap(unused)) as offline:
        assert (await offline.get("https://example.org/a")).text == "answer 1 to /a"
        assert (await offline.get("https://example.org/a")).text == "answer 2 to /a"
        assert (await offline.get("https://example.org/zipped")).text == "<p>compressed words</p>"
        with pytest.raises(httpx.ConnectError, match="is not in the recording"):
            await offline.get("https://example.org/b")
    assert site.calls == 3  # type: ignore[attr-defined]
