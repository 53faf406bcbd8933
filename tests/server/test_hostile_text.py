"""Text that is not valid Unicode (a lone UTF-16 surrogate, which a page's script can write)
is made valid once where it enters: the server answers it with U+FFFD in its place and goes on
serving, over a real `dsl serve` on stdio, where every answer is encoded as UTF-8."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.fixtures.server import FixtureServer
from tests.server.wire import StdioWire, stdio_wire

pytestmark = pytest.mark.anyio
CLEAN = "A\ufffdB"


async def call(wire: StdioWire, tool: str, **arguments: Any) -> dict[str, Any]:
    with anyio.fail_after(60):
        answer = await wire.request("tools/call", {"name": tool, "arguments": arguments})
    assert "result" in answer, answer
    content: dict[str, Any] = answer["result"]["structuredContent"]
    return content


async def test_a_page_with_a_lone_surrogate_is_answered_and_the_server_goes_on(
    home: Path, site: FixtureServer
) -> None:
    page = site.url("/surrogate.html")
    async with stdio_wire(home, "2025-11-25") as wire:
        await wire.start()
        session = (await call(wire, "create_session"))["sessionId"]
        navigated = await call(wire, "navigate", sessionId=session, url=page)
        assert navigated["title"] == CLEAN
        info = await call(wire, "get_page_info", sessionId=session)
        assert info["title"] == CLEAN
        (tab,) = (await call(wire, "list_tabs", sessionId=session))["tabs"]
        assert tab["title"] == CLEAN
        content = await call(
            wire, "get_page_content", sessionId=session, format="text", onlyMainContent=False
        )
        assert CLEAN in content["content"]
        value = await call(
            wire,
            "evaluate",
            sessionId=session,
            script="() => [document.title, {k: document.title}]",
        )
        assert value["value"] == [CLEAN, {"k": CLEAN}]
        scraped = await call(wire, "scrape", url=page, format="markdown", onlyMainContent=False)
        assert scraped["title"] == CLEAN and CLEAN in scraped["content"]
        with anyio.fail_after(20):
            assert "result" in await wire.request("ping")  # still serving
