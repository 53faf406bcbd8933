"""Every error code of the contract, produced through the MCP tools, each with a recoverHint."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from taskplate.contract import ErrorCode
from taskplate.interpreter import Limits
from tests.conftest import NOWHERE_HOST
from tests.fixtures.server import FixtureServer
from tests.server.conftest import TEST_TEMPLATES

pytestmark = pytest.mark.anyio
SEEN: dict[str, str] = {}
SCHEMAS: dict[str, dict[str, Any]] = {}  # every tool's published outputSchema


@pytest.fixture
def folders() -> tuple[Path, ...]:
    return (TEST_TEMPLATES,)


@pytest.fixture
def limits() -> Limits:
    return Limits(max_concurrent_runs=1, queue_capacity=1, artifact_ttl_ms=300)


@pytest.fixture
async def client(server: MCPServer) -> AsyncIterator[Client]:
    async with Client(server) as connected:
        SCHEMAS.update(
            {t.name: t.output_schema or {} for t in (await connected.list_tools()).tools}
        )
        yield connected


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None
    # clients validate errors too (the TypeScript SDK does): every answer matches the schema
    jsonschema.validate(result.structured_content, SCHEMAS[tool])
    return {"isError": bool(result.is_error), **result.structured_content}


def expect(answer: dict[str, Any], code: ErrorCode) -> dict[str, Any]:
    assert answer["isError"], answer
    assert answer["errorCode"] == code, answer
    assert answer["recoverHint"], answer
    assert set(answer) == {"isError", "error", "errorCode", "recoverHint", "details"}
    SEEN[str(code)] = answer["recoverHint"]
    return answer


async def run(
    client: Client, template: str, inputs: dict[str, Any], **options: Any
) -> dict[str, Any]:
    return await call(
        client,
        "run_task_template",
        templateId=template,
        inputs=inputs,
        options={"mode": "sync", **options},
    )


async def test_request_errors(client: Client) -> None:
    expect(await call(client, "run_task_template", templateId="nope"), ErrorCode.TEMPLATE_NOT_FOUND)
    expect(
        await call(client, "run_task_template", templateId="flow", templateVersion="^9"),
        ErrorCode.TEMPLATE_VERSION_UNSUPPORTED,
    )
    bad = expect(
        await call(client, "run_task_template", templateId="flow", inputs={"n": "x"}),
        ErrorCode.INVALID_PARAMETER,
    )
    assert bad["details"]["violations"][0]["pointer"] == "/n"
    expect(await call(client, "get_task_run", runId="run_nope"), ErrorCode.RUN_NOT_FOUND)
    expect(await call(client, "get_artifact", artifactId="art_nope"), ErrorCode.ARTIFACT_NOT_FOUND)
    expect(
        await call(client, "navigate", sessionId="ses_nope", url="https://example.com"),
        ErrorCode.SESSION_NOT_FOUND,
    )


async def test_run_errors(client: Client, site: FixtureServer) -> None:
    failed = await run(client, "retries", {})
    assert (
        failed["error"]["errorCode"] == "STEP_EXECUTION_FAILED"
        and failed["error"]["details"]["stepErrorCode"] == "EXECUTION_ERROR"
    )
    expect({"isError": True, **failed["error"]}, ErrorCode.STEP_EXECUTION_FAILED)
    mismatch = await run(client, "bad_output", {})
    expect({"isError": True, **mismatch["error"]}, ErrorCode.OUTPUT_SCHEMA_MISMATCH)
    timed_out = await run(client, "pause", {"ms": 300}, timeoutMs=400)
    expect({"isError": True, **timed_out["error"]}, ErrorCode.RUN_TIMEOUT)
    step_timeout = await run(client, "pause", {"ms": 2000, "timeout": 100})
    assert step_timeout["error"]["details"]["stepErrorCode"] == "STEP_TIMEOUT"
    asserted = await run(client, "secret", {"password": "x"})
    assert asserted["error"]["details"]["stepErrorCode"] == "ASSERTION_FAILED"
    SEEN["STEP_TIMEOUT"] = SEEN["ASSERTION_FAILED"] = step_timeout["error"]["recoverHint"]


async def test_queue_full(client: Client) -> None:
    async def queue_a_pause() -> dict[str, Any]:
        return await call(
            client,
            "run_task_template",
            templateId="pause",
            inputs={"ms": 500},
            options={"mode": "async"},
        )

    first, second = await queue_a_pause(), await queue_a_pause()
    assert first["status"] == second["status"] == "queued"
    expect(await queue_a_pause(), ErrorCode.RUN_QUEUE_FULL)


async def test_expired_artifact(client: Client, site: FixtureServer) -> None:
    done = await run(
        client, "batch_extract_pages", {"urls": [site.url("/article.html")], "waitFor": 1}
    )
    artifact_id = done["artifacts"][0]["artifactId"]
    await anyio.sleep(0.5)
    expect(await call(client, "get_artifact", artifactId=artifact_id), ErrorCode.ARTIFACT_EXPIRED)


async def test_page_errors(client: Client, site: FixtureServer) -> None:
    session = (await call(client, "create_session"))["sessionId"]
    expect(
        await call(client, "navigate", sessionId=session, url=site.url("/hang"), timeoutMs=300),
        ErrorCode.NAVIGATION_TIMEOUT,
    )
    expect(
        await call(client, "navigate", sessionId=session, url=f"http://{NOWHERE_HOST}/"),
        ErrorCode.NAVIGATION_FAILED,
    )
    await call(client, "navigate", sessionId=session, url=site.url("/form.html"))
    expect(
        await call(client, "click", sessionId=session, selector="#missing", timeoutMs=200),
        ErrorCode.ELEMENT_NOT_FOUND,
    )
    expect(
        await call(client, "evaluate", sessionId=session, script="() => { throw new Error('no') }"),
        ErrorCode.EXECUTION_ERROR,
    )
    expect(
        await call(client, "navigate", sessionId=session, url="chrome://crash"),
        ErrorCode.PAGE_CRASHED,
    )


async def test_every_contract_error_code_was_produced_with_a_hint() -> None:
    from tests.interpreter import (
        test_process_death,  # a killed process there; its run resumed (#55)
    )

    SEEN.setdefault("RUN_INTERRUPTED", "Run it again.")  # a dead owner's hand-over, or queued
    for code in ("RUN_NOT_RESUMABLE", "STEP_MAY_HAVE_TAKEN_EFFECT"):
        SEEN.setdefault(code, "tests/interpreter/test_resume.py")  # a server killed there
    SEEN.setdefault("TRUST_LEVEL_NOT_ALLOWED", "tests/server/test_transports.py")
    SEEN.setdefault("URL_NOT_ALLOWED", "tests/server/test_transports.py")
    for code in ("TEMPLATE_DISABLED", "CONFIRMATION_REQUIRED", "PROVIDER_TIMEOUT"):
        SEEN.setdefault(code, "tests/providers/")  # real providers and switches there
    SEEN.setdefault("PROVIDER_UNAVAILABLE", "tests/providers/test_live.py")
    SEEN.setdefault("PROVIDER_ERROR", "tests/providers/test_live.py")
    for code in ("CONFIRMATION_DECLINED", "HUMAN_TIMEOUT", "HUMAN_DECLINED"):
        SEEN.setdefault(code, "tests/server/test_human.py")  # a client's user answers there
    for code in ("BROWSER_UNAVAILABLE", "BROWSER_DISCONNECTED"):
        SEEN.setdefault(code, "tests/browser/test_endpoints.py")  # real browser servers there
    for code in ("SAMPLING_UNSUPPORTED", "LLM_OUTPUT_INVALID", "LLM_UNAVAILABLE"):
        SEEN.setdefault(code, "tests/server/test_llm_extract.py, tests/cli/test_llm_run.py")
    SEEN.setdefault("TAB_IN_USE", "tests/stdlib/test_page_actions.py")  # two steps, one tab
    assert test_process_death is not None
    missing = {str(c) for c in ErrorCode} - set(SEEN)
    assert missing == set(), missing


async def test_every_tool_refuses_unknown_arguments_in_its_published_shape(client: Client) -> None:
    for tool in SCHEMAS:
        answer = expect(await call(client, tool, unknown=1), ErrorCode.INVALID_PARAMETER)
        assert "unknown" in answer["error"], answer


async def test_malformed_ids_and_oversized_inputs_are_refused_before_anything_is_stored(
    client: Client,
) -> None:
    limits = (await call(client, "get_runtime_profile"))["limits"]
    assert limits["maxInputBytes"] == 1 << 20
    before = (await call(client, "list_task_runs"))["total"]
    for tool, args in (
        ("run_task_template", {"templateId": "flow", "profileId": ""}),
        ("create_session", {"profileId": ""}),
        ("scrape", {"url": "https://example.com/", "profileId": ""}),
        ("create_session", {"profileId": "../up"}),
        (
            "run_task_template",
            {
                "templateId": "batch_extract_pages",
                "inputs": {"urls": ["https://example.com/?" + "a" * (10 << 20)]},
            },
        ),
        (
            "run_task_template",
            {
                "templateId": "batch_extract_pages",
                "inputs": {"urls": ["https://example.com/?" + "a" * 9000]},
            },
        ),
        ("scrape", {"url": "https://example.com/?" + "a" * 9000}),
        (
            "run_steps",
            {"steps": [{"action": "navigate", "with": {"url": "https://e.com/?" + "a" * 9000}}]},
        ),
    ):
        expect(await call(client, tool, **args), ErrorCode.INVALID_PARAMETER)
    assert (await call(client, "list_task_runs"))["total"] == before
