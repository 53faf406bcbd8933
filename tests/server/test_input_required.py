"""llm_extract, confirm and hand_over on MCP 2026-07-28, through the input-required flow: the
SDK's own client (its default protocol) answers each `InputRequiredResult` with its sampling and
elicitation callbacks (deterministic responders, no model, no network) and calls again with the
sealed `requestState`. Real Chromium on the fixture site; in memory, over stdio and over HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

from taskplate.contract import ErrorCode
from taskplate.interpreter import ConfirmPolicy, RunManager
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL, env_for, start_http, stop
from tests.server.test_human import TEMPLATES as HUMAN
from tests.server.test_human import answering as person
from tests.server.test_llm_extract import GOOD, Responder, answering
from tests.server.test_llm_extract import TEMPLATES as LLM

pytestmark = pytest.mark.anyio
MODERN = "2026-07-28"
OWNER_TOKEN = "owner-token-0123456789abcdef"
OTHER_TOKEN = "other-token-0123456789abcdef"


@pytest.fixture
def folders() -> tuple[Path, ...]:
    return (HUMAN, LLM)


def client(server: Any, **callbacks: Any) -> Client:
    """The SDK's client on 2026-07-28 (its default; said here so that it stays so)."""
    return Client(server, mode=MODERN, **callbacks)


async def call(c: Client, tool: str, **args: Any) -> dict[str, Any]:
    with anyio.fail_after(120):
        result = await c.call_tool(tool, args)
    assert result.structured_content is not None, result.content
    return {"isError": bool(result.is_error), **result.structured_content}


async def run(c: Client, template: str, **inputs: Any) -> dict[str, Any]:
    answer = await call(
        c, "run_task_template", templateId=template, inputs=inputs, options={"mode": "sync"}
    )
    assert answer["status"] not in ("queued", "running"), answer
    return await call(c, "get_task_run", runId=answer["runId"], includeSteps=True)


def step(answer: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in answer["steps"] if s["stepId"] == step_id)


def step_code(answer: dict[str, Any]) -> str:
    assert answer["status"] == "failed", answer
    return str(answer["error"]["details"]["stepErrorCode"])


async def finished(c: Client, run_id: str) -> dict[str, Any]:
    """Polls get_task_run, whose input_required results the client answers on the way."""
    with anyio.fail_after(120):
        while True:
            answer = await call(c, "get_task_run", runId=run_id, includeSteps=True)
            if answer["status"] not in ("queued", "running", "waiting_for_human"):
                return answer
            await anyio.sleep(0.1)


# -- llm_extract through sampling input requests -----------------------------------------------
async def test_a_sampled_answer_that_matches_is_the_steps_data(
    server: MCPServer, site: FixtureServer
) -> None:
    model = Responder(answering(GOOD, fenced=True))
    async with client(server, sampling_callback=model) as c:
        answer = await run(c, "llm_page", url=site.url("/recipe.html"))
    assert answer["status"] == "succeeded", answer
    assert answer["result"] == {**GOOD, "attempts": 1}
    (request,) = model.requests
    assert request.system_prompt and "JSON Schema" in request.system_prompt
    assert "Weeknight lentil soup" in model.last_text()


async def test_a_mismatch_is_asked_again_in_a_second_round(
    server: MCPServer, site: FixtureServer
) -> None:
    model = Responder(answering({"subject": "soup"}), answering(GOOD))
    async with client(server, sampling_callback=model) as c:
        answer = await run(c, "llm_page", url=site.url("/recipe.html"))
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["attempts"] == 2
    _, second = model.requests
    assert len(second.messages) == 3  # the question, the wrong answer, the errors
    assert "'number' is a required property" in model.last_text()


async def test_an_answer_that_never_matches_fails_the_step(
    server: MCPServer, site: FixtureServer
) -> None:
    model = Responder(lambda prompt: "I think it is a soup.")
    async with client(server, sampling_callback=model) as c:
        answer = await run(c, "llm_page", url=site.url("/recipe.html"))
    assert step_code(answer) == ErrorCode.LLM_OUTPUT_INVALID
    assert len(model.requests) == 2  # asked once more, not again


async def test_a_client_without_sampling_gets_its_own_code(
    server: MCPServer, site: FixtureServer
) -> None:
    async with client(server) as c:
        answer = await run(c, "llm_page", url=site.url("/recipe.html"))
    assert step_code(answer) == ErrorCode.SAMPLING_UNSUPPORTED
    assert "sampling capability" in answer["steps"][-1]["error"]["message"]
    assert "input_required" in answer["error"]["recoverHint"]


async def test_secrets_never_reach_a_sampling_input_request(
    server: MCPServer, site: FixtureServer
) -> None:
    model = Responder(answering(GOOD))
    async with client(server, sampling_callback=model) as c:
        answer = await run(c, "llm_page", url=site.url("/account.html"), token="tok-4242-secret")
    assert answer["status"] == "succeeded", answer
    assert "tok-4242-secret" not in model.sent() and "the token is ***" in model.sent()


async def test_an_async_run_is_asked_through_get_task_run(
    server: MCPServer, site: FixtureServer
) -> None:
    model = Responder(answering({"subject": "soup"}), answering(GOOD))
    async with client(server, sampling_callback=model) as c:
        queued = await call(
            c,
            "run_task_template",
            templateId="llm_page",
            inputs={"url": site.url("/recipe.html")},
            options={"mode": "async"},
        )
        assert queued["status"] == "queued"
        answer = await finished(c, queued["runId"])
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["attempts"] == 2 and len(model.requests) == 2


async def test_run_steps_asks_through_input_required(
    server: MCPServer, site: FixtureServer
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
    async with client(server, sampling_callback=model) as c:
        answer = await call(c, "run_steps", steps=steps)
    assert answer["status"] == "succeeded", answer
    assert answer["results"]["headings"]["data"] == ["Ingredients", "Method"]


async def test_extract_structured_batches_questions_asked_together(
    server: MCPServer, site: FixtureServer
) -> None:
    def by_page(prompt: str) -> str:
        return json.dumps({"subject": "lentil soup" if "lentil" in prompt else "account"})

    model = Responder(by_page)
    schema = {"type": "object", "required": ["subject"], "properties": {"subject": {}}}
    urls = [site.url("/recipe.html"), site.url("/account.html")]
    async with client(server, sampling_callback=model) as c:
        answer = await run(
            c, "extract_structured", urls=urls, instruction="What is it about?", schema=schema
        )
    assert answer["status"] == "succeeded", answer
    items = {i["url"]: i for i in answer["result"]["items"]}
    assert items[urls[0]]["data"] == {"subject": "lentil soup"}
    assert items[urls[1]]["data"] == {"subject": "account"}


# -- confirm through elicitation input requests ------------------------------------------------
@pytest.mark.parametrize(
    ("action", "status"),
    [("accept", "succeeded"), ("decline", "failed"), ("cancel", "canceled")],
)
async def test_a_confirmation_is_answered_in_a_round(
    server: MCPServer, action: str, status: str
) -> None:
    asked: list[str] = []
    async with client(server, elicitation_callback=person(action, asked)) as c:
        answer = await run(c, "confirmed", item="a teapot")
    assert answer["status"] == status, answer
    assert asked == ["Submit the order for a teapot?"]
    assert step(answer, "order")["confirmation"] == {
        "question": "Submit the order for a teapot?",
        "answer": action,
        "by": "elicitation",
    }
    if action == "decline":
        assert step_code(answer) == "CONFIRMATION_DECLINED"
    if action == "accept":
        assert answer["result"] == {"order": {"ordered": "a teapot"}, "after": True}


async def test_a_declined_confirmation_skips_when_the_template_says_so(server: MCPServer) -> None:
    async with client(server, elicitation_callback=person("decline", [])) as c:
        answer = await run(c, "confirmed_skip")
    assert answer["status"] == "succeeded", answer
    assert step(answer, "order")["status"] == "skipped"


async def test_a_client_without_elicitation_follows_the_confirm_setting(
    server: MCPServer, manager: RunManager
) -> None:
    manager.confirm = ConfirmPolicy.ASK
    async with client(server) as c:
        answer = await run(c, "confirmed")
    assert step_code(answer) == "CONFIRMATION_REQUIRED"
    assert step(answer, "order")["confirmation"]["by"] == "nobody to ask"


# -- hand_over through elicitation input requests ----------------------------------------------
@pytest.mark.parametrize(
    ("action", "status"), [("accept", "succeeded"), ("decline", "failed"), ("cancel", "canceled")]
)
async def test_a_hand_over_is_answered_through_get_task_run(
    server: MCPServer, site: FixtureServer, action: str, status: str
) -> None:
    asked: list[str] = []
    gate = f"mrtr-{action}"
    async with client(server, elicitation_callback=person(action, asked)) as c:
        queued = await call(
            c,
            "run_task_template",
            templateId="handed_over",
            inputs={"url": site.url(f"/human.html?gate={gate}")},
            options={"mode": "async"},
        )
        answer = await finished(c, queued["runId"])
    site.open_gate(gate)
    assert answer["status"] == status, answer
    assert "Solve the check on the page." in asked[0]
    if action == "accept":
        assert answer["result"]["resumedBy"] == "resumed"
    if action == "decline":
        assert step_code(answer) == "HUMAN_DECLINED"


@pytest.mark.parametrize("by", ["condition", "resumed"])
async def test_a_hand_over_asked_in_a_sync_call_ends_by_the_page_or_resume(
    server: MCPServer, manager: RunManager, site: FixtureServer, by: str
) -> None:
    """The question is out; the page changes (or resume_task_run) first: the late answer is
    dropped and the call answers the run's end."""
    gate = f"mrtr-sync-{by}"
    args = {
        "templateId": "handed_over",
        "inputs": {"url": site.url(f"/human.html?gate={gate}")},
        "options": {"mode": "sync"},
    }
    async with client(server, elicitation_callback=person("decline", [])) as c:
        with anyio.fail_after(60):
            first = await c.session.call_tool("run_task_template", args, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult), first
        ((key, request),) = (first.input_requests or {}).items()
        assert isinstance(request, types.ElicitRequest)
        assert "Solve the check on the page." in request.params.message
        (run_id,) = list(manager.live)
        if by == "condition":
            site.open_gate(gate)
        else:
            resumed = await call(c, "resume_task_run", runId=run_id)
            assert resumed["resumeRequested"] is True, resumed
        with anyio.fail_after(60):
            await manager.wait(run_id)
        with anyio.fail_after(60):
            late = await c.session.call_tool(
                "run_task_template",
                args,
                input_responses={key: types.ElicitResult(action="decline")},
                request_state=first.request_state,
                allow_input_required=True,
            )
    site.open_gate(gate)
    assert isinstance(late, types.CallToolResult) and late.structured_content is not None
    assert late.structured_content["status"] == "succeeded", late  # the decline came too late
    assert late.structured_content["result"]["resumedBy"] == by


# -- the rounds driven by hand: cancel, stale and forged states ---------------------------------
async def first_round(c: Client, **args: Any) -> types.InputRequiredResult:
    with anyio.fail_after(60):
        first = await c.session.call_tool(
            "run_task_template", {"templateId": "confirmed", **args}, allow_input_required=True
        )
    assert isinstance(first, types.InputRequiredResult), first
    return first


def accepted(first: types.InputRequiredResult) -> dict[str, types.ElicitResult]:
    assert first.input_requests is not None
    (key, request), *_ = first.input_requests.items()
    assert isinstance(request, types.ElicitRequest)
    assert request.params.message.startswith("Submit the order for ")
    return {key: types.ElicitResult(action="accept", content={})}


async def test_a_run_canceled_while_its_question_is_out_answers_its_end(
    server: MCPServer, manager: RunManager
) -> None:
    async with client(server, elicitation_callback=person("accept", [])) as c:
        first = await first_round(c)
        assert first.request_state and first.request_state.startswith("v1.")
        with pytest.raises(ValueError):
            json.loads(first.request_state)  # sealed by the SDK: not readable by the client
        run_id = next(iter(manager.live))
        canceled = await call(c, "cancel_task_run", runId=run_id)
        assert canceled["cancelRequested"] is True
        with anyio.fail_after(60):
            await manager.wait(run_id)
        with anyio.fail_after(60):
            late = await c.session.call_tool(
                "run_task_template",
                {"templateId": "confirmed"},
                input_responses=accepted(first),
                request_state=first.request_state,
                allow_input_required=True,
            )
    assert isinstance(late, types.CallToolResult) and late.structured_content is not None
    assert late.structured_content["status"] == "canceled", late
    steps = (await manager.describe(run_id, include_steps=True))["steps"]
    assert all(s["status"] != "succeeded" for s in steps), steps  # the order was never sent


async def test_an_answer_resent_after_the_run_ended_gets_its_end(
    server: MCPServer, manager: RunManager
) -> None:
    async with client(server, elicitation_callback=person("accept", [])) as c:
        first = await first_round(c, options={"mode": "sync"})
        args = {"templateId": "confirmed", "options": {"mode": "sync"}}
        with anyio.fail_after(60):
            done = await c.session.call_tool(
                "run_task_template",
                args,
                input_responses=accepted(first),
                request_state=first.request_state,
                allow_input_required=True,
            )
        assert isinstance(done, types.CallToolResult) and done.structured_content is not None
        assert done.structured_content["status"] == "succeeded", done
        assert manager.live == {}
        # the run has ended: a resent answer finds it over and is answered its end
        with anyio.fail_after(60):
            again = await c.session.call_tool(
                "run_task_template",
                args,
                input_responses=accepted(first),
                request_state=first.request_state,
                allow_input_required=True,
            )
    assert isinstance(again, types.CallToolResult) and again.structured_content is not None
    assert again.structured_content["status"] == "succeeded"


async def asked_through_get_task_run(c: Client, run_id: str, not_key: str | None = None) -> Any:
    """Polls get_task_run by hand until it carries a question (another than `not_key`)."""
    with anyio.fail_after(60):
        while True:
            got = await c.session.call_tool(
                "get_task_run", {"runId": run_id}, allow_input_required=True
            )
            if isinstance(got, types.InputRequiredResult):
                assert got.input_requests is not None
                if not_key not in got.input_requests:
                    return got
            else:
                assert got.structured_content is not None
                assert got.structured_content["status"] in ("queued", "running"), got
            await anyio.sleep(0.1)


def sampled(text: str) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=text), model="scripted"
    )


async def test_a_question_answered_already_is_refused_as_stale(
    server: MCPServer, manager: RunManager, site: FixtureServer
) -> None:
    unused = Responder(answering(GOOD))  # declares sampling; the test answers by hand
    async with client(server, sampling_callback=unused) as c:
        queued = await call(
            c,
            "run_task_template",
            templateId="llm_page",
            inputs={"url": site.url("/recipe.html")},
            options={"mode": "async"},
        )
        run_id = queued["runId"]
        first = await asked_through_get_task_run(c, run_id)
        second = await asked_through_get_task_run(c, run_id)  # the same question, again
        (key,) = first.input_requests
        assert list(second.input_requests) == [key]
        wrong = {key: sampled('{"subject": "soup"}')}
        with anyio.fail_after(60):
            answered = await c.session.call_tool(
                "get_task_run",
                {"runId": run_id},
                input_responses=wrong,
                request_state=first.request_state,
                allow_input_required=True,
            )
        assert isinstance(answered, types.CallToolResult) and not answered.is_error
        await asked_through_get_task_run(c, run_id, not_key=key)  # the retry's question
        with anyio.fail_after(60):
            stale = await c.session.call_tool(
                "get_task_run",
                {"runId": run_id},
                input_responses=wrong,
                request_state=second.request_state,
                allow_input_required=True,
            )
        await call(c, "cancel_task_run", runId=run_id)
        with anyio.fail_after(60):
            await manager.wait(run_id)
    assert unused.requests == []
    assert isinstance(stale, types.CallToolResult) and stale.is_error, stale
    body = stale.structured_content
    assert body is not None and body["errorCode"] == ErrorCode.INVALID_PARAMETER, body
    assert "was already answered" in body["error"] and body["recoverHint"]
    assert body["details"]["requestState"] == "stale"
    assert (await manager.describe(run_id))["status"] == "canceled"


async def test_a_forged_or_rebound_state_is_refused_by_the_sdk(
    server: MCPServer, manager: RunManager
) -> None:
    async with client(server, elicitation_callback=person("accept", [])) as c:
        first = await first_round(c, inputs={"item": "a kettle"})
        state = first.request_state or ""
        forged = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
        for args, sent in (
            ({"templateId": "confirmed", "inputs": {"item": "a kettle"}}, forged),
            ({"templateId": "confirmed", "inputs": {"item": "a teapot"}}, state),  # other args
            ({"templateId": "confirmed", "inputs": {"item": "a kettle"}}, "v1.made-up"),
        ):
            with pytest.raises(MCPError, match="Invalid or expired requestState"):
                with anyio.fail_after(60):
                    await c.session.call_tool(
                        "run_task_template",
                        args,
                        input_responses=accepted(first),
                        request_state=sent,
                        allow_input_required=True,
                    )
        (run_id,) = list(manager.live)  # still waiting for its real answer
        await call(c, "cancel_task_run", runId=run_id)
        with anyio.fail_after(60):
            await manager.wait(run_id)


# -- real transports ----------------------------------------------------------------------------
async def test_over_stdio_a_sampled_answer_is_the_steps_data(
    tmp_path: Path, site: FixtureServer
) -> None:
    params = StdioServerParameters(
        command=DSL, args=["serve"], env={**env_for(tmp_path), "TASKPLATE_TEMPLATES": str(LLM)}
    )
    model = Responder(answering({"subject": "soup"}), answering(GOOD))
    async with client(params, sampling_callback=model) as c:
        answer = await run(c, "llm_page", url=site.url("/recipe.html"))
    assert answer["status"] == "succeeded", answer
    assert answer["result"] == {**GOOD, "attempts": 2}


async def test_over_http_a_remote_caller_confirms_in_rounds(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    served = start_http(home, env={"TASKPLATE_TEMPLATES": str(HUMAN)})
    try:
        asked: list[str] = []
        async with client(served.url, elicitation_callback=person("accept", asked)) as c:
            accepted_run = await run(c, "confirmed", item="soap")
        async with client(served.url) as c:  # no elicitation: a remote caller is refused
            refused = await run(c, "confirmed")
    finally:
        stop(served)
    assert accepted_run["status"] == "succeeded", accepted_run
    assert asked == ["Submit the order for soap?"]
    assert step_code(refused) == "CONFIRMATION_REQUIRED"


@asynccontextmanager
async def remote_client(url: str, token: str, asked: list[str]) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        client(
            streamable_http_client(url, http_client=http),
            elicitation_callback=person("accept", asked),
        ) as c,
    ):
        yield c


async def test_an_async_runs_question_goes_only_to_the_caller_that_started_it(
    tmp_path: Path,
) -> None:
    """Stateless HTTP on 2026-07-28 tells callers apart by their bearer token: to another
    remote caller the run is unknown, and it is never asked its question."""
    home = tmp_path / "home"
    home.mkdir()
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"{OWNER_TOKEN}\n{OTHER_TOKEN}\n", encoding="utf-8")
    served = start_http(home, "--token-file", str(tokens), env={"TASKPLATE_TEMPLATES": str(HUMAN)})
    try:
        mine: list[str] = []
        theirs: list[str] = []
        async with remote_client(served.url, OWNER_TOKEN, mine) as owner:
            queued = await call(
                owner, "run_task_template", templateId="confirmed", options={"mode": "async"}
            )
            run_id = queued["runId"]
            await asked_through_get_task_run(owner, run_id)  # the question is out
            async with remote_client(served.url, OTHER_TOKEN, theirs) as other:
                for _ in range(3):
                    seen = await call(other, "get_task_run", runId=run_id)
                    assert seen["errorCode"] == "RUN_NOT_FOUND", seen
            answer = await finished(owner, run_id)
    finally:
        stop(served)
    assert theirs == []
    assert mine == ["Submit the order for tea?"]
    assert answer["status"] == "succeeded", answer
