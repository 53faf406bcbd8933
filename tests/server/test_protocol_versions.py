"""Every protocol version the SDK negotiates, spoken raw over stdio and streamable HTTP: each
answer is checked against that version's result schema (as the SDK checks it), and every tool's
structuredContent against the outputSchema the tool publishes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jsonschema
import pytest
from mcp_types.methods import validate_server_result
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from tests.fixtures.server import FixtureServer
from tests.server.conftest import Served, start_http, stop
from tests.server.wire import HttpWire, Wire, stdio_wire

pytestmark = pytest.mark.anyio
VERSIONS = [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS]


def tour(site: FixtureServer) -> list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]]:
    """One call of every tool, in an order where each finds what it needs (`seen` holds the
    answers so far)."""
    form = site.url("/form.html")

    def sid(seen: dict[str, Any]) -> dict[str, Any]:
        return {"sessionId": seen["create_session"]["sessionId"]}

    return [
        ("get_runtime_profile", lambda seen: {}),
        ("list_task_templates", lambda seen: {}),
        (
            "run_task_template",
            lambda seen: {"templateId": "flow", "inputs": {"n": 3}, "options": {"mode": "sync"}},
        ),
        ("get_task_run", lambda seen: {"runId": seen["run_task_template"]["runId"]}),
        ("list_task_runs", lambda seen: {"limit": 5}),
        ("cancel_task_run", lambda seen: {"runId": seen["run_task_template"]["runId"]}),
        ("resume_task_run", lambda seen: {"runId": seen["run_task_template"]["runId"]}),
        ("create_session", lambda seen: {}),
        ("list_sessions", lambda seen: {}),
        ("navigate", lambda seen: {**sid(seen), "url": form}),
        ("wait_for_stable", lambda seen: {**sid(seen), "quietMs": 100, "timeoutMs": 5000}),
        ("get_page_info", sid),
        (  # the cheapest format: these tests are about the protocol, not the content
            "get_page_content",
            lambda seen: {**sid(seen), "format": "html", "onlyMainContent": False},
        ),
        ("snapshot", lambda seen: {**sid(seen), "maxBytes": 5000}),
        ("fill", lambda seen: {**sid(seen), "selector": "#name", "value": "Ada"}),
        ("select_option", lambda seen: {**sid(seen), "selector": "#colour", "value": "g"}),
        ("press", lambda seen: {**sid(seen), "selector": "#keys", "key": "Enter"}),
        ("click", lambda seen: {**sid(seen), "selector": "#covered"}),
        ("evaluate", lambda seen: {**sid(seen), "script": "document.title"}),
        ("screenshot", sid),
        ("create_tab", lambda seen: {**sid(seen), "url": form}),
        ("list_tabs", sid),
        ("close_tab", lambda seen: {**sid(seen), "tabId": seen["create_tab"]["tabId"]}),
        (
            "run_steps",
            lambda seen: {
                **sid(seen),
                "steps": [{"id": "info", "action": "get_page_info"}],
            },
        ),
        ("close_session", sid),
        (  # the session's calls, kept as a template (again on every version: overwrite)
            "save_template",
            lambda seen: {**sid(seen), "name": "toured", "overwrite": True},
        ),
        (
            "scrape",
            lambda seen: {"url": site.url("/article.html"), "format": "links", "waitFor": 1},
        ),
        ("get_artifact", lambda seen: {"artifactId": seen["screenshot"]["artifactId"]}),
    ]


def checked(wire: Wire, method: str, answer: dict[str, Any]) -> dict[str, Any]:
    assert "result" in answer, (method, wire.version, answer)
    validate_server_result(method, wire.version, answer["result"])
    result: dict[str, Any] = answer["result"]
    return result


async def speak_every_method(wire: Wire, site: FixtureServer) -> None:
    started = await wire.start()
    checked(wire, "server/discover" if wire.version == "2026-07-28" else "initialize", started)
    listed = checked(wire, "tools/list", await wire.request("tools/list"))
    schemas = {tool["name"]: tool["outputSchema"] for tool in listed["tools"]}
    resources = checked(wire, "resources/list", await wire.request("resources/list"))
    assert any(r["uri"].startswith("template://flow@") for r in resources["resources"])
    checked(wire, "prompts/list", await wire.request("prompts/list"))
    seen: dict[str, Any] = {}
    for tool, arguments in tour(site):
        answer = await wire.request("tools/call", {"name": tool, "arguments": arguments(seen)})
        result = checked(wire, "tools/call", answer)
        assert not result.get("isError"), (tool, result)
        jsonschema.validate(result["structuredContent"], schemas[tool])
        seen[tool] = result["structuredContent"]
    assert set(seen) == set(schemas), "the tour calls every tool"


@pytest.mark.parametrize("version", VERSIONS)
async def test_every_method_over_stdio(version: str, site: FixtureServer, home: Path) -> None:
    async with stdio_wire(home, version) as wire:
        await speak_every_method(wire, site)


@pytest.fixture(scope="module")
async def served(home: Path) -> AsyncIterator[Served]:
    served = start_http(home, "--trust", "local")
    yield served
    stop(served)


@pytest.mark.parametrize("version", VERSIONS)
async def test_every_method_over_streamable_http(
    version: str, served: Served, site: FixtureServer
) -> None:
    async with httpx2.AsyncClient(timeout=60) as client:
        await speak_every_method(HttpWire(client, served.url, version), site)


async def answer_in_rounds(wire: Wire) -> None:
    """2026-07-28's input-required flow on the wire: a confirmation asked as an input request,
    answered by calling again with inputResponses and the sealed requestState; each answer
    checked against the protocol's result schema and the tool's outputSchema; a changed state
    refused."""
    checked(wire, "server/discover", await wire.start())
    listed = checked(wire, "tools/list", await wire.request("tools/list"))
    schema = next(t["outputSchema"] for t in listed["tools"] if t["name"] == "run_steps")
    capable = {"_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}
    call = {
        "name": "run_steps",
        "arguments": {"steps": [{"id": "go", "action": "set", "confirm": "Go on?", "with": {}}]},
        **capable,
    }
    with anyio.fail_after(60):
        first = checked(wire, "tools/call", await wire.request("tools/call", call))
    assert first["resultType"] == "input_required", first
    ((key, request),) = first["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Go on?"
    state = first["requestState"]
    changed = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
    refused = await wire.request("tools/call", {**call, "requestState": changed})
    assert refused["error"]["code"] == -32602, refused
    assert refused["error"]["message"] == "Invalid or expired requestState"
    answers = {key: {"action": "accept", "content": {}}}
    with anyio.fail_after(60):
        done = checked(
            wire,
            "tools/call",
            await wire.request(
                "tools/call", {**call, "inputResponses": answers, "requestState": state}
            ),
        )
    assert not done.get("isError"), done
    assert done["structuredContent"]["status"] == "succeeded", done
    jsonschema.validate(done["structuredContent"], schema)
    confirmation = done["structuredContent"]["steps"][0]["confirmation"]
    assert confirmation == {"question": "Go on?", "answer": "accept", "by": "elicitation"}


async def test_input_required_rounds_over_stdio(home: Path) -> None:
    async with stdio_wire(home, "2026-07-28") as wire:
        await answer_in_rounds(wire)


async def test_input_required_rounds_over_streamable_http(served: Served) -> None:
    async with httpx2.AsyncClient(timeout=60) as client:
        wire = HttpWire(client, served.url, "2026-07-28")
        wire.errors_answered = True  # the refused state comes as HTTP 400 with its error
        await answer_in_rounds(wire)
