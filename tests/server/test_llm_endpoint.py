"""llm_extract under `dsl serve` (the server built in this process, and once the real one over
stdio; real Chromium, the fixture site) with an [llm] endpoint in taskplate.toml, a local
chat-completions server
(tests/fixtures/chat_completions.py): a client that cannot sample is answered by the endpoint, one
that can by itself unless `use = "always"`; the step row says which model answered; secrets
are masked in what the endpoint receives; an endpoint that fails fails the step clearly."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import MCPServer

from taskplate.contract import ErrorCode
from taskplate.interpreter import RunManager
from tests.fixtures.chat_completions import ChatEndpoint, chat_endpoint
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL, env_for
from tests.server.test_llm_extract import GOOD, TOKEN, Responder, answering

pytestmark = pytest.mark.anyio
TEMPLATE = Path(__file__).parent / "llm_templates" / "llm_page.yaml"
LLM_TOKEN = "sk-endpoint-5e1d77"
TOKEN_ENV = "TASKPLATE_TEST_LLM_TOKEN"
ENDPOINT_MODEL = {"via": "endpoint", "name": "fake-model"}


@pytest.fixture
def endpoint() -> Iterator[ChatEndpoint]:
    with chat_endpoint([json.dumps(GOOD)], token=LLM_TOKEN) as served:
        yield served


@pytest.fixture
def use() -> str:
    """The [llm] table's `use`; a test parametrizes it."""
    return "fallback"


@pytest.fixture
def folders(
    tmp_path: Path, endpoint: ChatEndpoint, use: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, ...]:
    """llm_page beside a taskplate.toml whose [llm] names the endpoint; its token in the
    environment of this process (the server's)."""
    folder = tmp_path / "templates"
    folder.mkdir()
    shutil.copy(TEMPLATE, folder)
    (folder / "taskplate.toml").write_text(
        f'[llm]\nurl = "{endpoint.url}"\nmodel = "fake-model"\ntoken_env = "{TOKEN_ENV}"\n'
        f'use = "{use}"\ntimeout_ms = 20000\n'
    )
    monkeypatch.setenv(TOKEN_ENV, LLM_TOKEN)
    return (folder,)


async def run(client: Client, site: FixtureServer, page: str = "/recipe.html") -> dict[str, Any]:
    inputs = {"url": site.url(page), "token": TOKEN}
    result = await client.call_tool(
        "run_task_template",
        {"templateId": "llm_page", "inputs": inputs, "options": {"mode": "sync"}},
    )
    assert result.structured_content is not None, result.content
    return result.structured_content


async def llm_step(client: Client, answer: dict[str, Any]) -> dict[str, Any]:
    """The llm_extract step's record, as get_task_run shows it."""
    described = await client.call_tool(
        "get_task_run", {"runId": answer["runId"], "includeSteps": True}
    )
    assert described.structured_content is not None
    (step,) = [s for s in described.structured_content["steps"] if s["action"] == "llm_extract"]
    return step


def model_of(step: dict[str, Any]) -> Any:
    """Which model answered, as the step row's result preview begins."""
    preview = step["resultPreview"]
    assert preview.startswith('{"model": '), preview
    return json.loads(preview[len('{"model": ') : preview.index("}") + 1])


async def test_a_client_that_cannot_sample_is_answered_by_the_endpoint(
    server: MCPServer, site: FixtureServer, endpoint: ChatEndpoint
) -> None:
    async with Client(server, mode="legacy") as client:
        answer = await run(client, site, "/account.html")
        assert answer["status"] == "succeeded", answer
        step = await llm_step(client, answer)
    assert answer["result"] == {**GOOD, "attempts": 1}
    assert model_of(step) == ENDPOINT_MODEL
    ((headers, body),) = endpoint.requests
    assert headers["Authorization"] == f"Bearer {LLM_TOKEN}"
    assert body["model"] == "fake-model"
    sent = json.dumps(body)
    assert "Plan: Team" in sent  # the page's content reached the endpoint
    assert TOKEN not in sent and "the token is ***" in sent and "Your API token is ***" in sent
    assert LLM_TOKEN not in json.dumps(answer) + json.dumps(step)


async def test_a_client_on_2026_07_28_without_sampling_is_answered_by_the_endpoint(
    server: MCPServer, site: FixtureServer, endpoint: ChatEndpoint
) -> None:
    async with Client(server, mode="2026-07-28") as client:
        answer = await run(client, site)
        assert answer["status"] == "succeeded", answer
        assert model_of(await llm_step(client, answer)) == ENDPOINT_MODEL
    assert len(endpoint.requests) == 1


async def test_a_client_that_samples_is_asked_and_the_endpoint_is_not(
    server: MCPServer, site: FixtureServer, endpoint: ChatEndpoint
) -> None:
    model = Responder(answering(GOOD))
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        answer = await run(client, site)
        assert answer["status"] == "succeeded", answer
        assert model_of(await llm_step(client, answer)) == {"via": "client", "name": "scripted"}
    assert len(model.requests) == 1 and endpoint.requests == []


@pytest.mark.parametrize("use", ["always"])
async def test_use_always_asks_the_endpoint_even_when_the_client_samples(
    server: MCPServer, site: FixtureServer, endpoint: ChatEndpoint
) -> None:
    model = Responder(answering(GOOD))
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        answer = await run(client, site)
        assert answer["status"] == "succeeded", answer
        assert model_of(await llm_step(client, answer)) == ENDPOINT_MODEL
    assert model.requests == [] and len(endpoint.requests) == 1


async def failed_step(client: Client, answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["status"] == "failed", answer
    assert answer["error"]["errorCode"] == ErrorCode.STEP_EXECUTION_FAILED, answer
    assert answer["error"]["details"]["stepErrorCode"] == ErrorCode.LLM_UNAVAILABLE, answer
    assert answer["error"]["recoverHint"], answer
    step = await llm_step(client, answer)
    assert step["status"] == "failed" and step["error"]["code"] == ErrorCode.LLM_UNAVAILABLE
    assert LLM_TOKEN not in json.dumps(answer) + json.dumps(step)
    assert "Traceback" not in json.dumps(answer)
    return {**step["error"], "recoverHint": answer["error"]["recoverHint"]}


async def test_a_missing_token_variable_fails_the_step_naming_it(
    server: MCPServer,
    site: FixtureServer,
    endpoint: ChatEndpoint,
    manager: RunManager,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(TOKEN_ENV)
    async with Client(server, mode="legacy") as client:
        error = await failed_step(client, await run(client, site))
        sessions = (await client.call_tool("list_sessions", {})).structured_content
    assert TOKEN_ENV in error["message"] and TOKEN_ENV in error["recoverHint"]
    assert endpoint.requests == []
    assert sessions is not None and sessions["sessions"] == []  # nothing left open
    assert manager.live == {}


async def test_an_endpoint_that_refuses_fails_the_step_with_its_status(
    server: MCPServer, site: FixtureServer, endpoint: ChatEndpoint
) -> None:
    endpoint.mode = "status"  # its body echoes the Authorization header
    async with Client(server, mode="legacy") as client:
        error = await failed_step(client, await run(client, site))
    assert "answered HTTP 500" in error["message"] and "Bearer ***" in error["message"]


async def test_dsl_serve_reads_the_data_homes_llm_table(
    tmp_path: Path, site: FixtureServer, endpoint: ChatEndpoint
) -> None:
    """The real `dsl serve` over stdio: its data home's taskplate.toml names the endpoint, its
    environment the token; a client without sampling is answered by the endpoint."""
    home = tmp_path / "serve-home"
    home.mkdir()
    (home / "taskplate.toml").write_text(
        f'[llm]\nurl = "{endpoint.url}"\nmodel = "home-model"\ntoken_env = "{TOKEN_ENV}"\n'
    )
    served = StdioServerParameters(
        command=DSL,
        args=["serve"],
        env={**env_for(home), "TASKPLATE_TEMPLATES": str(TEMPLATE.parent), TOKEN_ENV: LLM_TOKEN},
    )
    async with Client(served, mode="legacy") as client:
        answer = await run(client, site, "/account.html")
        assert answer["status"] == "succeeded", answer
        assert model_of(await llm_step(client, answer)) == {"via": "endpoint", "name": "home-model"}
    ((headers, body),) = endpoint.requests
    assert headers["Authorization"] == f"Bearer {LLM_TOKEN}" and body["model"] == "home-model"
    assert TOKEN not in json.dumps(body)
