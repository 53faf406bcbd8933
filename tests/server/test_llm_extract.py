"""llm_extract through the real protocol: `dsl serve` over stdio (real Chromium, the fixture
site) and the SDK's client, whose sampling callback is a deterministic responder (no model, no
network): answers that match, mismatch then match, never match; a client without sampling; a
client on 2026-07-28 (asked through input_required results); secrets masked in every request sent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from taskplate.contract import ErrorCode
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL, env_for, start_http, stop

pytestmark = pytest.mark.anyio
TEMPLATES = Path(__file__).parent / "llm_templates"
TOKEN = "tok-4242-secret"
SEEN: dict[str, str] = {}  # error code -> recover hint, for test_errors' every-code check

GOOD = {"subject": "Weeknight lentil soup", "number": 18}


class Responder:
    """A scripted model: each request answered by the next function of `script` (the last one
    repeats); every request kept, as sent, for the test to read."""

    def __init__(self, *script: Callable[[str], str]) -> None:
        self.script = script
        self.requests: list[types.CreateMessageRequestParams] = []

    async def __call__(
        self, context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.requests.append(params)
        answer = self.script[min(len(self.requests), len(self.script)) - 1]
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=answer(self.last_text())),
            model="scripted",
        )

    def last_text(self) -> str:
        last = self.requests[-1].messages[-1].content
        assert isinstance(last, types.TextContent)
        return last.text

    def sent(self) -> str:
        """Everything the server sent to the model, as one text."""
        return "\n".join(p.model_dump_json() for p in self.requests)


def answering(value: Any, fenced: bool = False) -> Callable[[str], str]:
    text = json.dumps(value)
    return lambda prompt: f"Here it is:\n```json\n{text}\n```" if fenced else text


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> StdioServerParameters:
    home = tmp_path_factory.mktemp("llm-home")
    return StdioServerParameters(
        command=DSL, args=["serve"], env={**env_for(home), "TASKPLATE_TEMPLATES": str(TEMPLATES)}
    )


async def run(
    client: Client, template: str, inputs: dict[str, Any], **options: Any
) -> dict[str, Any]:
    result = await client.call_tool(
        "run_task_template",
        {"templateId": template, "inputs": inputs, "options": {"mode": "sync", **options}},
    )
    assert result.structured_content is not None, result.content
    return result.structured_content


async def step_error(client: Client, answer: dict[str, Any]) -> dict[str, Any]:
    """The failed llm_extract step's code, message and recover hint (the run's hint is the
    step's), checked against the step row get_task_run shows."""
    assert answer["status"] == "failed", answer
    run_error = answer["error"]
    assert run_error["errorCode"] == ErrorCode.STEP_EXECUTION_FAILED, answer
    described = await client.call_tool(
        "get_task_run", {"runId": answer["runId"], "includeSteps": True}
    )
    assert described.structured_content is not None
    (failed,) = [s for s in described.structured_content["steps"] if s["status"] == "failed"]
    assert failed["action"] == "llm_extract"
    assert failed["error"]["code"] == run_error["details"]["stepErrorCode"], (failed, answer)
    assert run_error["recoverHint"], run_error
    SEEN[failed["error"]["code"]] = run_error["recoverHint"]
    return {**failed["error"], "recoverHint": run_error["recoverHint"]}


async def test_an_answer_that_matches_is_the_steps_data(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    model = Responder(answering(GOOD, fenced=True))
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        answer = await run(client, "llm_page", {"url": site.url("/recipe.html")})
    assert answer["status"] == "succeeded", answer
    assert answer["result"] == {**GOOD, "attempts": 1}
    (request,) = model.requests
    assert request.system_prompt and "JSON Schema" in request.system_prompt
    prompt = model.last_text()
    assert "Name the page's subject" in prompt
    assert '"required": ["subject", "number"]' in prompt
    assert "Weeknight lentil soup" in prompt and "18 g" in prompt  # the main content
    assert "deluxe cookware bundle" not in prompt  # not the sponsored aside


async def test_a_mismatch_is_asked_again_with_the_errors_once(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    model = Responder(answering({"subject": "soup"}), answering(GOOD))
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        answer = await run(client, "llm_page", {"url": site.url("/recipe.html")})
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["attempts"] == 2
    _, second = model.requests
    assert len(second.messages) == 3  # the question, the wrong answer, the errors
    assert second.messages[1].role == "assistant"
    assert "'number' is a required property" in model.last_text()


async def test_an_answer_that_never_matches_fails_the_step_clearly(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    model = Responder(lambda prompt: "I think it is a soup.")
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        answer = await run(client, "llm_page", {"url": site.url("/recipe.html")})
        error = await step_error(client, answer)
        assert error["code"] == ErrorCode.LLM_OUTPUT_INVALID, error
        assert "did not match the schema" in error["message"]
        assert len(model.requests) == 2  # asked once more, not again
        sessions = (await client.call_tool("list_sessions", {})).structured_content
    assert sessions is not None and sessions["sessions"] == []  # nothing left open


async def test_a_client_without_sampling_gets_its_own_code_and_a_hint(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    async with Client(server, mode="legacy") as client:
        answer = await run(client, "llm_page", {"url": site.url("/recipe.html")})
        error = await step_error(client, answer)
    assert error["code"] == ErrorCode.SAMPLING_UNSUPPORTED, error
    assert "sampling capability" in error["message"]
    assert "sampling" in error["recoverHint"]


async def test_a_connection_without_server_requests_is_asked_through_input_required(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    """2026-07-28 has no server requests: the question rides an input_required result
    (tests/server/test_input_required.py has every case); without sampling, its own code."""
    model = Responder(answering(GOOD))
    async with Client(server, mode="2026-07-28", sampling_callback=model) as client:
        answer = await run(client, "llm_page", {"url": site.url("/recipe.html")})
    assert answer["status"] == "succeeded", answer
    assert len(model.requests) == 1
    async with Client(server, mode="2026-07-28") as client:
        answer = await run(client, "llm_page", {"url": site.url("/recipe.html")})
        error = await step_error(client, answer)
    assert error["code"] == ErrorCode.SAMPLING_UNSUPPORTED, error
    assert "sampling capability" in error["message"]
    assert "input_required" in error["recoverHint"]


async def test_secrets_never_reach_a_sampling_request(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    model = Responder(answering(GOOD))
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        for source in ("content", "snapshot"):
            answer = await run(
                client,
                "llm_page",
                {"url": site.url("/account.html"), "token": TOKEN, "source": source},
            )
            assert answer["status"] == "succeeded", answer
    sent = model.sent()
    assert len(model.requests) == 2
    assert TOKEN not in sent
    assert "the token is ***" in sent  # in the instruction
    assert "Your API token is ***" in sent  # in the page's content


async def test_extract_structured_reads_every_page(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    def by_page(prompt: str) -> str:
        subject = "lentil soup" if "lentil" in prompt else "account"
        return json.dumps({"subject": subject})

    model = Responder(by_page)
    schema = {
        "type": "object",
        "required": ["subject"],
        "properties": {"subject": {"type": "string"}},
    }
    urls = [site.url("/recipe.html"), site.url("/account.html")]
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        answer = await run(
            client,
            "extract_structured",
            {"urls": urls, "instruction": "What is the page about?", "schema": schema},
        )
    assert answer["status"] == "succeeded", answer
    items = {i["url"]: i for i in answer["result"]["items"]}
    assert items[urls[0]]["data"] == {"subject": "lentil soup"}
    assert items[urls[1]]["data"] == {"subject": "account"}
    assert answer["result"]["summary"]["succeeded"] == 2


async def finished(client: Client, run_id: str) -> dict[str, Any]:
    with anyio.fail_after(120):
        while True:
            described = await client.call_tool("get_task_run", {"runId": run_id})
            answer = described.structured_content
            assert answer is not None
            if answer["status"] not in ("queued", "running"):
                return answer
            await anyio.sleep(0.2)


async def test_an_async_run_samples_while_its_client_stays_connected(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    model = Responder(answering(GOOD))
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        queued = await client.call_tool(
            "run_task_template",
            {
                "templateId": "llm_page",
                "inputs": {"url": site.url("/recipe.html")},
                "options": {"mode": "async"},
            },
        )
        assert queued.structured_content is not None
        assert queued.structured_content["status"] == "queued"
        answer = await finished(client, queued.structured_content["runId"])
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["subject"] == GOOD["subject"]
    assert len(model.requests) == 1


async def test_an_async_run_whose_client_left_fails_clearly(
    tmp_path: Path, site: FixtureServer
) -> None:
    served = start_http(tmp_path, "--trust", "local", env={"TASKPLATE_TEMPLATES": str(TEMPLATES)})
    try:
        model = Responder(answering(GOOD))
        gate = "llm-left"
        async with Client(served.url, mode="legacy", sampling_callback=model) as client:
            queued = await client.call_tool(
                "run_task_template",
                {
                    "templateId": "llm_page",
                    "inputs": {"url": site.url(f"/gate?n={gate}")},
                    "options": {"mode": "async"},
                },
            )
            assert queued.structured_content is not None
            run_id = queued.structured_content["runId"]
            with anyio.fail_after(60):  # the run is held on the page until the client is gone
                while gate not in site.waiting:
                    await anyio.sleep(0.05)
        site.open_gate(gate)
        async with Client(served.url, mode="legacy") as other:
            answer = await finished(other, run_id)
            error = await step_error(other, answer)
        assert error["code"] == ErrorCode.LLM_UNAVAILABLE, error
        assert "disconnected" in error["message"], error
        assert model.requests == []  # the client that left was never asked
    finally:
        stop(served)


async def test_run_steps_may_use_llm_extract(
    server: StdioServerParameters, site: FixtureServer
) -> None:
    model = Responder(answering(["Ingredients", "Method"]))
    steps = [
        {"action": "navigate", "with": {"url": site.url("/recipe.html")}},
        {
            "id": "headings",
            "action": "llm_extract",
            "with": {
                "instruction": "The section headings, in order.",
                "schema": {"type": "array", "items": {"type": "string"}},
            },
        },
    ]
    async with Client(server, mode="legacy", sampling_callback=model) as client:
        result = await client.call_tool("run_steps", {"steps": steps})
    answer = result.structured_content
    assert answer is not None and answer["status"] == "succeeded", answer
    assert answer["results"]["headings"]["data"] == ["Ingredients", "Method"]
