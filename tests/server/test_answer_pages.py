"""Answers under the answer budget: a long page, a batch's items and a run's steps come in pages
read to their end with cursors; a garbled, stale, misdirected (another tool's) or another
caller's cursor is one unknown cursor."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from taskplate.interpreter import RunManager
from taskplate.server import build_server
from taskplate.server._paging import Cursor
from tests.fixtures.server import FixtureServer
from tests.server.conftest import Served
from tests.server.test_ownership import ALPHA_1, BETA, LEGACY, caller, served  # noqa: F401
from tests.server.wire import MODERN

pytestmark = pytest.mark.anyio
BUDGET = 80_000  # 20,000 tokens, the server's default


async def answer(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    """The tool's answer, its text within the budget it was given and the same as its data."""
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None, result.content
    text = [c.text for c in result.content if c.type == "text"]
    assert len(text) == 1 and json.loads(text[0]) == result.structured_content
    assert len(text[0]) <= args.get("maxTokens", BUDGET // 4) * 4, (tool, len(text[0]))
    return {"isError": bool(result.is_error), **result.structured_content}


async def test_a_long_page_is_read_to_its_end_page_by_page(
    server: MCPServer, site: FixtureServer
) -> None:
    async with Client(server) as client:
        session = (await answer(client, "create_session"))["sessionId"]
        await answer(client, "navigate", sessionId=session, url=site.url("/large?n=2000"))
        read = {"sessionId": session, "format": "html", "onlyMainContent": False}
        first = await answer(client, "get_page_content", **read)
        parts, page = [first["content"]], first["page"]
        assert page["offset"] == 0 and page["returned"] < page["total"] and page["nextCursor"]
        while page["nextCursor"]:
            more = await answer(
                client, "get_page_content", sessionId=session, cursor=page["nextCursor"]
            )
            assert more["format"] == "html" and more["title"] == "Large page"
            assert more["page"]["offset"] == page["offset"] + page["returned"]
            parts.append(more["content"])
            page = more["page"]
        whole = await answer(client, "get_page_content", **read, maxTokens=1_000_000)
        assert "page" not in whole and "".join(parts) == whole["content"]
        assert page["total"] == len(whole["content"])
        # scrape pages alike, its next pages asked with the cursor alone; a call's maxTokens
        scraped = await answer(client, "scrape", url=site.url("/large?n=300"), maxTokens=2000)
        assert scraped["url"].endswith("/large?n=300") and scraped["page"]["nextCursor"]
        more = await answer(client, "scrape", cursor=scraped["page"]["nextCursor"], maxTokens=2000)
        assert more["url"] == scraped["url"] and more["page"]["offset"] > 0


async def test_a_batch_and_its_steps_are_paged_to_their_end(
    server: MCPServer, site: FixtureServer
) -> None:
    urls = [site.url(f"/article.html?n={n}") for n in range(12)]
    async with Client(server) as client:
        run = await answer(
            client,
            "run_task_template",
            templateId="batch_extract_pages",
            inputs={"urls": urls, "engine": "http"},
            options={"mode": "sync"},
        )
        assert run["status"] == "succeeded" and "resultPage" not in run  # it fits: whole
        again = {"templateId": "batch_extract_pages", "inputs": {"urls": urls, "engine": "http"}}
        small = await answer(
            client, "run_task_template", **again, options={"mode": "sync"}, maxTokens=1000
        )
        assert 0 < small["resultPage"]["returned"] < 12 and small["resultPage"]["nextCursor"]
        first = await answer(client, "get_task_run", runId=run["runId"], maxTokens=1000)
        page, items = first["resultPage"], list(first["result"]["items"])
        assert first["result"]["summary"] and page["field"] == "items" and page["total"] == 12
        assert 0 < page["returned"] < 12
        while page["nextCursor"]:
            more = await answer(
                client,
                "get_task_run",
                runId=run["runId"],
                cursor=page["nextCursor"],
                maxTokens=1000,
            )
            items += more["result"]["items"]
            page = more["resultPage"]
        assert [item["url"] for item in items] == urls
        stepped = await answer(
            client, "get_task_run", runId=run["runId"], includeSteps=True, maxTokens=1000
        )
        steps, page = list(stepped["steps"]), stepped["stepsPage"]
        while page["nextCursor"]:
            more = await answer(
                client,
                "get_task_run",
                runId=run["runId"],
                cursor=page["nextCursor"],
                maxTokens=1000,
            )
            assert "result" not in more
            steps += more["steps"]
            page = more["stepsPage"]
        assert len(steps) == page["total"] > 12
        every = await answer(client, "get_task_run", runId=run["runId"], includeSteps=True)
        assert steps == every["steps"]


async def test_a_garbled_or_misdirected_cursor_is_an_unknown_cursor(
    server: MCPServer, site: FixtureServer
) -> None:
    async with Client(server) as client:
        scraped = await answer(client, "scrape", url=site.url("/large?n=300"), maxTokens=1000)
        cursor = scraped["page"]["nextCursor"]
        session = (await answer(client, "create_session"))["sessionId"]
        await answer(client, "navigate", sessionId=session, url=site.url("/large?n=300"))
        read = await answer(client, "get_page_content", sessionId=session, maxTokens=1000)
        page_cursor = read["page"]["nextCursor"]
        # each reads on in its own cursor only: a cursor is bound to the tool that made it
        assert (await answer(client, "scrape", cursor=cursor, maxTokens=1000))["page"]["offset"]
        own = await answer(client, "get_page_content", sessionId=session, cursor=page_cursor)
        assert own["page"]["offset"] > 0
        run = await answer(
            client,
            "run_task_template",
            templateId="batch_extract_pages",
            inputs={"urls": [site.url("/article.html")], "engine": "http"},
            options={"mode": "sync"},
        )
        asked = [
            ("scrape", {"cursor": cursor[:-2]}),
            ("scrape", {"cursor": cursor + "A"}),
            ("scrape", {"cursor": "pg1.bm90IGpzb24"}),
            ("get_task_run", {"runId": run["runId"], "cursor": cursor}),  # a content cursor
            ("scrape", {"cursor": cursor.replace("pg1.", "pg2.")}),
            ("scrape", {"cursor": page_cursor}),  # get_page_content's
            ("get_page_content", {"sessionId": session, "cursor": cursor}),  # scrape's
        ]
        answers = [await answer(client, tool, **args) for tool, args in asked]
        assert all(a["isError"] and a["errorCode"] == "INVALID_PARAMETER" for a in answers)
        assert (
            len({json.dumps(a) for a in answers}) == 1 and "unknown cursor" in answers[0]["error"]
        )
        assert (await answer(client, "scrape"))["error"].startswith("scrape needs `url`")


@pytest.mark.parametrize("version", [MODERN, LEGACY])
async def test_another_callers_cursor_is_answered_as_an_unknown_one(
    served: Served,  # noqa: F811
    site: FixtureServer,
    version: str,
) -> None:
    async with caller(served, ALPHA_1, version) as alpha, caller(served, BETA, version) as beta:
        pause = {"templateId": "pause", "inputs": {"ms": 1}, "options": {"mode": "sync"}}
        run = (await alpha.ok("run_task_template", pause))["runId"]
        cursor = Cursor("steps", run, 0).token()  # what a long run's answer would carry
        assert (await alpha.ok("get_task_run", {"runId": run, "cursor": cursor}))["steps"]
        theirs = await beta.tool("get_task_run", {"runId": run, "cursor": cursor})
        garbled = await beta.tool("get_task_run", {"runId": run, "cursor": cursor[:-1]})
        assert theirs["isError"] and theirs == garbled


async def test_the_servers_budget_is_the_operators(
    manager: RunManager, site: FixtureServer
) -> None:
    server, _ = build_server(manager, answer_tokens=1000)
    async with Client(server) as client:
        result = await client.call_tool("scrape", {"url": site.url("/large?n=300")})
        text = result.content[0].text if result.content[0].type == "text" else ""
        assert len(text) <= 4000 and json.loads(text)["page"]["nextCursor"]


async def test_an_artifact_is_a_resource_linked_from_the_answer_that_names_it(
    server: MCPServer, site: FixtureServer
) -> None:
    async with Client(server) as client:
        result = await client.call_tool("scrape", {"url": site.url("/large?n=300")})
        data = result.structured_content or {}
        links = [c for c in result.content if c.type == "resource_link"]
        assert [str(link.uri) for link in links] == [f"artifact://{data['artifactId']}"]
        read = await client.read_resource(str(links[0].uri))
        whole = json.loads(read.contents[0].text)  # type: ignore[union-attr]
        assert whole["content"].startswith(data["content"]) and whole["url"] == data["url"]


@pytest.mark.parametrize("version", [MODERN, LEGACY])
async def test_another_callers_artifact_resource_is_an_unknown_one(
    served: Served,  # noqa: F811
    version: str,
) -> None:
    async with caller(served, ALPHA_1, version) as alpha, caller(served, BETA, version) as beta:
        session = (await alpha.ok("create_session", {}))["sessionId"]
        shot = await alpha.tool("screenshot", {"sessionId": session})
        artifact = shot["structuredContent"]["artifactId"]
        assert {"type": "resource_link", "uri": f"artifact://{artifact}", "name": artifact} in shot[
            "content"
        ]
        mine = await alpha.method("resources/read", {"uri": f"artifact://{artifact}"})
        assert mine["result"]["contents"][0]["blob"]
        theirs = await beta.method("resources/read", {"uri": f"artifact://{artifact}"})
        never = await beta.method("resources/read", {"uri": "artifact://art_" + "0" * 20})
        assert theirs["error"]["code"] == -32602
        fake = "art_" + "0" * 20
        assert json.dumps(theirs["error"]).replace(artifact, "ID") == json.dumps(
            never["error"]
        ).replace(fake, "ID")
