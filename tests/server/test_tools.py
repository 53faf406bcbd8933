"""Browser tools through MCP: small answers, private sessions, scrape, run_steps, and the docs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from taskplate.stdlib import REGISTRY
from tests.fixtures.server import FixtureServer
from tests.server.conftest import Served

pytestmark = pytest.mark.anyio
DOCS = Path(__file__).parents[2] / "docs"
LIMIT = 262_144


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None
    assert len(json.dumps(result.structured_content)) <= LIMIT, (
        f"{tool} answered more than maxArtifactInlineBytes"
    )
    return {"isError": bool(result.is_error), **result.structured_content}


async def test_answers_stay_small_and_the_rest_is_an_artifact(
    server: MCPServer, site: FixtureServer
) -> None:
    async with Client(server) as client:
        session = (await call(client, "create_session"))["sessionId"]
        large = site.url("/large?n=20000")  # about 11 MB: past maxBodyBytes' default
        await call(client, "navigate", sessionId=session, url=large, maxBodyBytes=20_000_000)
        content = await call(
            client, "get_page_content", sessionId=session, format="html", onlyMainContent=False
        )
        assert (
            content["page"]["nextCursor"] and content["artifactId"]
        )  # tests/server/test_answer_pages.py
        whole = await call(
            client, "get_artifact", artifactId=content["artifactId"], offset=0, limit=1000
        )
        assert whole["size"] > LIMIT
        snap = await call(client, "snapshot", sessionId=session, maxBytes=5000)
        assert not snap["isError"]
        # About 1500 px tall: a PNG over the inline limit, cheap to paint under any load (the
        # 16384 px cut of taller pages is tested in tests/stdlib/test_page_actions.py).
        await call(client, "navigate", sessionId=session, url=site.url("/large?n=20"))
        shot = await client.call_tool("screenshot", {"sessionId": session, "fullPage": True})
        assert shot.structured_content is not None, shot.content
        assert shot.structured_content["inlined"] is False, shot.structured_content
        assert not any(c.type == "image" for c in shot.content)
        await call(client, "navigate", sessionId=session, url=site.url("/article.html"))
        small = await client.call_tool("screenshot", {"sessionId": session})
        assert any(c.type == "image" for c in small.content)


async def test_callers_without_a_token_list_no_sessions(remote_http: Served) -> None:
    """Stateless callers without a token cannot be told apart: none lists another's session
    (nor its own: it keeps its ids); tests/server/test_ownership.py holds callers with tokens
    to their own."""
    async with Client(remote_http.url) as first, Client(remote_http.url) as second:
        mine = (await call(first, "create_session"))["sessionId"]
        assert len(mine) >= 36  # an unguessable id
        for caller in (first, second):
            assert (await call(caller, "list_sessions"))["sessions"] == []
        assert (await call(first, "get_page_info", sessionId=mine))["url"] == "about:blank"
        await call(first, "close_session", sessionId=mine)


async def test_scrape_formats(server: MCPServer, site: FixtureServer) -> None:
    async with Client(server) as client:
        markdown = await call(client, "scrape", url=site.url("/article.html"))
        assert (
            markdown["format"] == "markdown"
            and "| 5 | 15.2 |" in markdown["content"]
            and "Contact support" not in markdown["content"]
        )
        links = await call(
            client, "scrape", url=site.url("/article.html"), format="links", onlyMainContent=False
        )
        assert f"({site.base}/news.html)" in links["content"]
        shot = await client.call_tool(
            "scrape", {"url": site.url("/js.html"), "format": "screenshot", "waitFor": 600}
        )
        assert any(c.type == "image" for c in shot.content)
        assert (await call(client, "list_sessions"))["sessions"] == []  # its context is gone


async def test_scrape_reads_with_the_engine_asked_for(
    server: MCPServer, site: FixtureServer
) -> None:
    async with Client(server) as client:
        static = await call(client, "scrape", url=site.url("/article.html"), engine="http")
        assert static["engine"] == "http" and "| 5 | 15.2 |" in static["content"]
        scripted = await call(client, "scrape", url=site.url("/js.html"), engine="auto")
        assert scripted["engine"] == "browser" and "needs script" in scripted["engineReason"]
        assert "written by JavaScript" in scripted["content"]
        as_before = await call(client, "scrape", url=site.url("/article.html"))
        assert as_before["engine"] == "browser" and as_before["content"] == static["content"]
        assert (await call(client, "list_sessions"))["sessions"] == []  # its context is gone


async def test_run_steps_answers_every_step_and_checks_them_first(
    server: MCPServer, site: FixtureServer
) -> None:
    async with Client(server) as client:
        done = await call(
            client,
            "run_steps",
            steps=[
                {"action": "navigate", "with": {"url": site.url("/form.html")}},
                {"action": "fill", "with": {"selector": "#name", "value": "Ada"}},
                {"id": "clicked", "action": "click", "with": {"selector": "#submit"}},
                {"id": "out", "action": "extract", "with": {"fields": {"out": "#out"}}},
            ],
        )
        assert (
            done["status"] == "succeeded"
            and '"name":"Ada"' in done["results"]["out"]["values"]["out"]
        )
        assert [s["action"] for s in done["steps"]] == ["navigate", "fill", "click", "extract"]
        bad = await call(client, "run_steps", steps=[{"action": "navgate", "with": {"url": "x"}}])
        assert bad["errorCode"] == "INVALID_PARAMETER" and 'did you mean "navigate"' in bad["error"]
        tolerant = await call(
            client,
            "run_steps",
            stopOnError=False,
            steps=[
                {"action": "click", "with": {"selector": "#missing", "timeoutMs": 100}},
                {"id": "after", "action": "set", "with": {"ran": True}},
            ],
        )
        assert tolerant["status"] == "succeeded" and tolerant["results"]["after"] == {"ran": True}


async def test_every_tool_is_documented_and_the_guides_examples_are_valid(
    server: MCPServer,
) -> None:
    names = {t.name for t in await server.list_tools()}
    guide = (DOCS / "mcp.md").read_text(encoding="utf-8")
    assert {n for n in names if f"`{n}`" not in guide} == set()
    skill = (DOCS / "SKILL.md").read_text(encoding="utf-8")
    steps = json.loads(re.search(r"```json\n(.*?)```", skill, re.S).group(1))["steps"]  # type: ignore[union-attr]
    from taskplate.dsl import check_source

    text = json.dumps({"template": "example", "version": "1.0.0", "steps": steps})
    assert [
        d for d in check_source(text, "SKILL.md", REGISTRY).diagnostics if d.severity == "error"
    ] == []


async def test_reading_right_after_navigate_waits_for_the_page_as_a_batch_does(
    server: MCPServer, site: FixtureServer
) -> None:
    async with Client(server) as client:
        session = (await call(client, "create_session"))["sessionId"]
        late = site.url("/article-late.html")  # writes its article 50 ms after load
        await call(client, "navigate", sessionId=session, url=late)
        read = await call(client, "get_page_content", sessionId=session)
        assert "Part 4: The council met" in read["content"], read
        assert "Loading" not in read["content"] and "News desk" not in read["content"]
        await call(client, "navigate", sessionId=session, url=late)
        snap = await call(client, "snapshot", sessionId=session)
        assert not snap["isError"] and snap["title"] == "The bridge vote"
        scraped = await call(client, "scrape", url=late)
        assert "Part 4: The council met" in scraped["content"]
        await call(client, "close_session", sessionId=session)
