"""Every tool answer that is an error carries an errorCode and validates against the tool's
published outputSchema: wrong arguments to every tool, an unknown tool, numbers past their
bounds (refused by the schema before any work), and `evaluate`'s own bounds (a promise that
never settles, a circular value, a 30 MB string: an artifact, never inline)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx2
import jsonschema
import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult

from tests.server.conftest import Served
from tests.server.wire import MODERN, HttpWire

pytestmark = pytest.mark.anyio
LIMIT = 262_144


async def output_schemas(server: MCPServer) -> dict[str, dict[str, Any]]:
    return {t.name: t.output_schema or {} for t in await server.list_tools()}


def checked(answer: CallToolResult, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The answer's structuredContent, valid against `schema`; an error has an errorCode."""
    content = answer.structured_content
    assert content is not None, answer.content
    if schema:
        jsonschema.validate(content, schema)
    if answer.is_error:
        assert content["errorCode"] and content["recoverHint"], content
    assert len(json.dumps(content)) <= LIMIT
    return {"isError": bool(answer.is_error), **content}


async def test_an_unknown_tool_is_answered_with_a_code(server: MCPServer) -> None:
    async with Client(server) as client:
        answer = checked(await client.call_tool("no_such_tool", {}), None)
    assert answer["isError"] and answer["errorCode"] == "INVALID_PARAMETER"
    assert "no_such_tool" in answer["error"]


async def test_numbers_past_their_bounds_are_refused_before_any_work(server: MCPServer) -> None:
    schemas = await output_schemas(server)
    calls = [
        ("list_task_runs", {"offset": 2**63}),
        ("list_task_runs", {"limit": 2**63}),
        ("get_artifact", {"artifactId": "art_x", "offset": 2**63}),
        ("get_artifact", {"artifactId": "art_x", "limit": 10**9}),
        ("run_steps", {"steps": [{"action": "set", "with": {}}], "timeoutMs": 2**63}),
        ("run_task_template", {"templateId": "flow", "options": {"timeoutMs": 2**63}}),
        ("snapshot", {"sessionId": "s", "offset": 2**63}),
    ]
    async with Client(server) as client:
        for tool, arguments in calls:
            answer = checked(await client.call_tool(tool, arguments), schemas[tool])
            assert answer["errorCode"] == "INVALID_PARAMETER", (tool, answer)


async def test_evaluate_is_bounded_in_time_and_size_and_answers_only_json(
    server: MCPServer,
) -> None:
    schema = (await output_schemas(server))["evaluate"]
    async with Client(server) as client:
        session = checked(await client.call_tool("create_session", {}), None)["sessionId"]

        async def evaluate(script: str, **extra: Any) -> dict[str, Any]:
            arguments = {"sessionId": session, "script": script, **extra}
            return checked(await client.call_tool("evaluate", arguments), schema)

        started = time.monotonic()
        never = await evaluate("() => new Promise(() => {})", timeoutMs=500)
        assert never["errorCode"] == "EXECUTION_ERROR" and "500 ms" in never["error"], never
        assert time.monotonic() - started < 20
        circular = await evaluate("() => { const a = {n: 1}; a.self = a; return a; }")
        assert circular["errorCode"] == "EXECUTION_ERROR" and "circular" in circular["error"]
        dates = await evaluate("() => [new Date(0), NaN, Infinity, [1, {a: 'b'}]]")
        assert dates["value"] == ["1970-01-01T00:00:00.000Z", None, None, [1, {"a": "b"}]]
        big = await evaluate("() => 'x'.repeat(30_000_000)")
        assert big["truncated"] is True and big["value"] is None and big["bytes"] > 30_000_000
        kept = checked(
            await client.call_tool(
                "get_artifact", {"artifactId": big["artifactId"], "offset": 0, "limit": 100}
            ),
            None,
        )
        assert kept["size"] == 30_000_002  # the value as JSON: a string in quotes
        assert (await evaluate("() => 1 + 1"))["value"] == 2  # the tab still answers


def wrong_values(schema: dict[str, Any]) -> list[Any]:
    """Values a property's schema refuses: another JSON type, a choice it does not list."""
    if "enum" in schema:
        return ["not-one-of-them", 7]
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    samples: dict[str, Any] = {  # a value of each JSON type
        "string": "12",
        "integer": 12345,
        "number": 1.5,
        "boolean": True,
        "object": {"a": 1},
        "array": ["a"],
        "null": None,
    }
    takes = set(kinds) | ({"integer"} if "number" in kinds else set())
    found = [value for kind, value in samples.items() if kind not in takes and kinds != [None]]
    if "integer" in kinds:
        found = [-(2**63), 2**64, *found]
    if "string" in kinds and schema.get("minLength"):
        found.append("")
    return found[:4]


async def test_every_tool_answers_wrong_arguments_with_a_code_and_a_valid_answer(
    server: MCPServer,
) -> None:
    tools = await server.list_tools()
    async with Client(server) as client:
        for tool in tools:
            schema = tool.input_schema
            required = schema.get("required", [])
            cases: list[dict[str, Any]] = [{"notAnArgument": 1}]
            if required:
                cases.append({})
            for name, prop in schema.get("properties", {}).items():
                cases += [{name: value} for value in wrong_values(prop)]
            for arguments in cases:
                answer = checked(await client.call_tool(tool.name, arguments), tool.output_schema)
                assert answer["isError"], (tool.name, arguments, answer)
                assert answer["errorCode"] == "INVALID_PARAMETER", (tool.name, arguments, answer)


@pytest.mark.parametrize("version", ["2025-11-25", MODERN])
async def test_an_unknown_tool_over_http_is_answered_with_a_code(
    remote_http: Served, version: str
) -> None:
    async with httpx2.AsyncClient(timeout=60) as http:
        wire = HttpWire(http, remote_http.url, version)
        await wire.start()
        answer = await wire.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert answer["result"]["isError"], answer
    assert answer["result"]["structuredContent"]["errorCode"] == "INVALID_PARAMETER"


async def test_a_30_mb_value_of_a_run_steps_step_is_not_answered_inline(server: MCPServer) -> None:
    schema = (await output_schemas(server))["run_steps"]
    steps = [{"id": "big", "action": "evaluate", "with": {"script": "() => 'x'.repeat(30e6)"}}]
    async with Client(server) as client:
        answer = checked(await client.call_tool("run_steps", {"steps": steps}), schema)
    assert answer["status"] == "succeeded", answer


async def test_a_bug_in_a_tool_answers_a_reference_and_never_pythons_text(
    server: MCPServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A tool's internal error is EXECUTION_ERROR naming a reference to the server's log line,
    which holds the exception; its text (a KeyError's key here) reaches no caller."""
    from taskplate.server import _sessions

    def broken(*_: Any) -> Any:
        raise KeyError("__proto__")

    monkeypatch.setattr(_sessions.ToolSessions, "mine", broken)
    schema = (await output_schemas(server))["list_sessions"]
    async with Client(server) as client:
        answer = checked(await client.call_tool("list_sessions", {}), schema)
    reference = answer["details"]["internalError"]
    assert answer["errorCode"] == "EXECUTION_ERROR" and reference in answer["recoverHint"]
    assert "__proto__" not in json.dumps(answer) and "KeyError" not in json.dumps(answer)
    assert any(
        reference in r.getMessage() and "__proto__" in r.getMessage() for r in caplog.records
    )
