"""Every reading answer says what kind of page it read: `pageType` on get_page_content, scrape
(in the browser and over HTTP), read_page (each engine) and each batch_extract_pages item, one of
the published types, the same for one page whichever way it was read; real server, real
Chromium, the local fixture site."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from taskplate.stdlib import REGISTRY
from taskplate.stdlib.content import PAGE_TYPES
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio
PAGES = {"/kinds/forum.html": "forum", "/kinds/product.html": "product"}


async def answer(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error and result.structured_content is not None, result.content
    return result.structured_content


async def test_every_reading_answer_says_the_kind_of_page(
    server: MCPServer, site: FixtureServer
) -> None:
    said: dict[str, list[str]] = {path: [] for path in PAGES}
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for tool in ("get_page_content", "scrape"):  # in their outputSchema, as listed
            listed = tools[tool].output_schema or {}
            assert "pageType" in json.dumps(listed), tool
        session = (await answer(client, "create_session"))["sessionId"]
        for path in PAGES:
            url = site.url(path)
            await answer(client, "navigate", sessionId=session, url=url)
            said[path].append(
                (await answer(client, "get_page_content", sessionId=session))["pageType"]
            )
            for engine in ("browser", "http"):
                scraped = await answer(client, "scrape", url=url, engine=engine)
                said[path].append(scraped["pageType"])
            steps = [
                {"action": "read_page", "with": {"url": url, "engine": e}}
                for e in ("browser", "http")
            ]
            ran = await answer(client, "run_steps", steps=steps)
            said[path] += [ran["results"][f"step_{i}"]["pageType"] for i in (1, 2)]
        await answer(client, "close_session", sessionId=session)
        batch = await answer(
            client,
            "run_task_template",
            templateId="batch_extract_pages",
            inputs={"urls": [site.url(p) for p in PAGES], "engine": "browser"},
            options={"mode": "sync"},
        )
    assert batch["status"] == "succeeded", batch
    for item, path in zip(batch["result"]["items"], PAGES, strict=True):
        said[path].append(item["pageType"])
    for path, kinds in said.items():
        assert len(kinds) == 6 and set(kinds) == {PAGES[path]}, (path, kinds)


def test_the_actions_result_schemas_name_page_type() -> None:
    """read_page and fetch publish the values; get_page_content a string (the default tools/list's
    room), which every value is."""
    for name in ("read_page", "fetch"):
        assert REGISTRY[name].result_schema["properties"]["pageType"]["enum"] == list(PAGE_TYPES)
    schema = REGISTRY["get_page_content"].result_schema["properties"]["pageType"]
    for kind in PAGE_TYPES:
        jsonschema.validate(kind, schema)
