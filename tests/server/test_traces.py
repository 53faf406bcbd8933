"""Traces and failure screenshots over MCP: options.trace of run_task_template, trace.zip and
the failed step's screenshotArtifactId in get_task_run, both read back with get_artifact."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from tests.fixtures.server import FixtureServer
from tests.server.conftest import TEST_TEMPLATES

pytestmark = pytest.mark.anyio


@pytest.fixture
def folders() -> tuple[Path, ...]:
    return (TEST_TEMPLATES,)


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    if result.structured_content is None:
        return {"isError": bool(result.is_error), "text": json.dumps(result.model_dump())}
    return {"isError": bool(result.is_error), **result.structured_content}


async def test_run_task_template_keeps_a_trace_and_names_the_failure_screenshot(
    server: MCPServer, site: FixtureServer
) -> None:
    async with Client(server) as client:
        answer = await call(
            client,
            "run_task_template",
            templateId="traced_login",
            inputs={"loginUrl": site.url("/login"), "password": "not the password"},
            options={"mode": "sync", "trace": "on"},
        )
        assert answer["status"] == "failed"
        run = await call(client, "get_task_run", runId=answer["runId"], includeSteps=True)
        names = {a["name"]: a["artifactId"] for a in run["artifacts"]}
        assert "trace.zip" in names
        chunk = await call(client, "get_artifact", artifactId=names["trace.zip"], limit=1000)
        assert base64.b64decode(chunk["data"]).startswith(b"PK")
        failed = next(s for s in run["steps"] if s["status"] == "failed")
        shot = await call(client, "get_artifact", artifactId=failed["screenshotArtifactId"])
        assert shot["mimeType"] == "image/png" and shot["complete"]


async def test_a_wrong_trace_option_is_an_error_answer(server: MCPServer) -> None:
    async with Client(server) as client:
        answer = await call(
            client, "run_task_template", templateId="flow", options={"trace": "sometimes"}
        )
        assert answer["isError"]
        listed = await call(client, "list_task_runs")
        assert listed["total"] == 0
