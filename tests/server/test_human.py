"""Confirmation and hand-over through the real protocol: the SDK's client answers
`elicitation/create` with a fixed answer (no person, no network), real Chromium on fixture pages."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from taskplate.contract import TaskplateError
from taskplate.interpreter import ConfirmPolicy, Principal, RunManager
from taskplate.server.ui import UiAccess, ui_app
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL, env_for, start_http, stop

pytestmark = pytest.mark.anyio
TEMPLATES = Path(__file__).parent / "human_templates"


@pytest.fixture
def folders() -> tuple[Path, ...]:
    return (TEMPLATES,)


def answering(action: str, asked: list[str]) -> Callable[..., Any]:
    """A client's user who answers every question the same way (and notes the questions)."""

    async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action, content={} if action == "accept" else None)

    return callback


def client(server: Any, answer: str | None = None, asked: list[str] | None = None) -> Client:
    """The SDK's client on the handshake protocol (2026-07-28 forbids server requests)."""
    callback = answering(answer, asked if asked is not None else []) if answer else None
    return Client(server, elicitation_callback=callback, mode="legacy")


async def call(c: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await c.call_tool(tool, args)
    assert result.structured_content is not None, result.content
    return {"isError": bool(result.is_error), **result.structured_content}


async def run(c: Client, template: str, **inputs: Any) -> dict[str, Any]:
    answer = await call(c, "run_task_template", templateId=template, inputs=inputs)
    return await call(c, "get_task_run", runId=answer["runId"], includeSteps=True)


def step(answer: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in answer["steps"] if s["stepId"] == step_id)


# -- confirmation -------------------------------------------------------------------------------
async def test_an_accepted_confirmation_runs_the_step_and_is_recorded(server: MCPServer) -> None:
    asked: list[str] = []
    async with client(server, "accept", asked) as c:
        answer = await run(c, "confirmed", item="a teapot")
    assert answer["status"] == "succeeded", answer
    assert asked == ["Submit the order for a teapot?"]
    assert answer["result"] == {"order": {"ordered": "a teapot"}, "after": True}
    assert step(answer, "order")["confirmation"] == {
        "question": "Submit the order for a teapot?",
        "answer": "accept",
        "by": "elicitation",
    }
    assert "confirmation" not in step(answer, "after")


async def test_a_question_never_carries_a_secret_input(server: MCPServer) -> None:
    asked: list[str] = []
    async with client(server, "accept", asked) as c:
        answer = await run(c, "confirmed_secret", code="4242-secret")
    assert answer["status"] == "succeeded", answer
    assert asked == ["Pay with the code ***?"]
    assert "4242-secret" not in json.dumps(answer)


async def test_a_declined_confirmation_fails_the_step(server: MCPServer) -> None:
    async with client(server, "decline") as c:
        answer = await run(c, "confirmed")
    assert answer["status"] == "failed"
    assert answer["error"]["details"]["stepErrorCode"] == "CONFIRMATION_DECLINED"
    assert step(answer, "order")["status"] == "failed"
    assert step(answer, "order")["confirmation"]["answer"] == "decline"
    assert [s["stepId"] for s in answer["steps"]] == ["order"]  # nothing after it ran


async def test_a_declined_confirmation_skips_the_step_when_the_template_says_so(
    server: MCPServer,
) -> None:
    async with client(server, "decline") as c:
        answer = await run(c, "confirmed_skip")
    assert answer["status"] == "succeeded", answer
    assert answer["result"] == {"order": None, "after": True}
    order = step(answer, "order")
    assert order["status"] == "skipped" and order["confirmation"]["answer"] == "decline"


async def test_a_canceled_confirmation_cancels_the_run(server: MCPServer) -> None:
    async with client(server, "cancel") as c:
        answer = await run(c, "confirmed")
    assert answer["status"] == "canceled", answer
    assert step(answer, "order")["confirmation"]["answer"] == "cancel"
    assert [s["stepId"] for s in answer["steps"]] == ["order"]


@pytest.mark.parametrize(
    ("policy", "status", "by"),
    [
        (ConfirmPolicy.ASK, "failed", "nobody to ask"),
        (ConfirmPolicy.ALLOW, "succeeded", "--confirm allow"),
        (ConfirmPolicy.DENY, "failed", "--confirm deny"),
    ],
)
async def test_a_local_client_without_elicitation_follows_the_confirm_setting(
    server: MCPServer, manager: RunManager, policy: ConfirmPolicy, status: str, by: str
) -> None:
    manager.confirm = policy
    async with client(server) as c:
        answer = await run(c, "confirmed")
    assert answer["status"] == status, answer
    assert step(answer, "order")["confirmation"]["by"] == by
    if status == "failed":
        assert answer["error"]["details"]["stepErrorCode"] == "CONFIRMATION_REQUIRED"
        assert "--confirm" in answer["error"]["recoverHint"]


async def test_a_remote_client_is_asked_and_refused_without_elicitation(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    served = start_http(home, "--confirm", "allow", env={"TASKPLATE_TEMPLATES": str(TEMPLATES)})
    try:
        asked: list[str] = []
        async with client(served.url, "accept", asked) as c:
            accepted = await run(c, "confirmed", item="soap")
        async with client(served.url) as c:  # --confirm allow is for local callers only
            refused = await run(c, "confirmed")
    finally:
        stop(served)
    assert accepted["status"] == "succeeded", accepted
    assert asked == ["Submit the order for soap?"]
    assert refused["status"] == "failed"
    assert refused["error"]["details"]["stepErrorCode"] == "CONFIRMATION_REQUIRED"
    assert "elicitation" in refused["error"]["recoverHint"]


# -- hand-over ----------------------------------------------------------------------------------
async def waiting(c: Client, run_id: str) -> dict[str, Any]:
    """The run once it waits for a person."""
    with anyio.fail_after(60):
        while True:
            answer = await call(c, "get_task_run", runId=run_id)
            if answer["status"] != "queued" and answer["status"] != "running":
                return answer
            await anyio.sleep(0.1)


async def finished(c: Client, run_id: str) -> dict[str, Any]:
    with anyio.fail_after(60):
        while True:
            answer = await call(c, "get_task_run", runId=run_id, includeSteps=True)
            if answer["status"] not in ("queued", "running", "waiting_for_human"):
                return answer
            await anyio.sleep(0.1)


async def hand_over(c: Client, site: FixtureServer, gate: str, **inputs: Any) -> str:
    url = site.url(f"/human.html?gate={gate}")
    answer = await call(
        c,
        "run_task_template",
        templateId="handed_over",
        inputs={"url": url, **inputs},
        options={"mode": "async"},
    )
    return str(answer["runId"])


async def test_a_hand_over_waits_for_a_person_and_resumes_when_the_page_changes(
    server: MCPServer, site: FixtureServer
) -> None:
    async with client(server) as c:
        run_id = await hand_over(c, site, "page-changes")
        paused = await waiting(c, run_id)
        assert paused["status"] == "waiting_for_human", paused
        assert paused["waitingFor"]["reason"] == "Solve the check on the page."
        assert "/human.html" in paused["waitingFor"]["url"]
        shot = paused["waitingFor"]["screenshotArtifactId"]
        assert shot in [a["artifactId"] for a in paused["artifacts"]]
        listed = await call(c, "list_task_runs", status="waiting_for_human")
        assert run_id in [r["runId"] for r in listed["runs"]]
        site.open_gate("page-changes")  # the person did it: the page shows #done
        answer = await finished(c, run_id)
    assert answer["status"] == "succeeded", answer
    assert answer["result"] == {"resumedBy": "condition", "title": "A check for a person"}
    assert "waitingFor" not in answer


async def test_items_handing_over_at_once_take_turns_and_each_is_resumed_on_its_own(
    server: MCPServer, site: FixtureServer
) -> None:
    urls = [site.url(f"/human.html?gate=turn-{n}") for n in (1, 2)]
    try:
        async with client(server) as c:
            started = await call(
                c,
                "run_task_template",
                templateId="handed_over_twice",
                inputs={"urls": urls},
                options={"mode": "async"},
            )
            run_id = started["runId"]
            first = await waiting(c, run_id)
            assert first["status"] == "waiting_for_human", first
            assert first["waitingFor"]["url"] in urls
            assert (await call(c, "resume_task_run", runId=run_id))["resumeRequested"] is True
            with anyio.fail_after(60):  # the other item's turn: one resume ended one hand-over
                while True:
                    second = await call(c, "get_task_run", runId=run_id)
                    assert second["status"] in ("running", "waiting_for_human"), second
                    if second.get("waitingFor", {}).get("url") not in (
                        None,
                        first["waitingFor"]["url"],
                    ):
                        break
                    await anyio.sleep(0.1)
            assert {first["waitingFor"]["url"], second["waitingFor"]["url"]} == set(urls)
            assert (await call(c, "resume_task_run", runId=run_id))["resumeRequested"] is True
            answer = await finished(c, run_id)
    finally:
        site.open_gate("turn-1")
        site.open_gate("turn-2")
    assert answer["status"] == "succeeded", answer
    assert [i["resumedBy"] for i in answer["result"]] == ["resumed", "resumed"]


async def test_a_hand_over_resumes_with_resume_task_run(
    server: MCPServer, manager: RunManager, site: FixtureServer
) -> None:
    async with client(server) as c:
        run_id = await hand_over(c, site, "resumed")
        await waiting(c, run_id)
        with pytest.raises(TaskplateError, match=f"^no run {run_id}$"):  # as for an unknown id
            await manager.resume(run_id, Principal("someone-else"))
        resumed = await call(c, "resume_task_run", runId=run_id)
        assert resumed == {
            "isError": False,
            "runId": run_id,
            "resumeRequested": True,
            "currentStatus": "waiting_for_human",
        }
        answer = await finished(c, run_id)
        again = await call(c, "resume_task_run", runId=run_id)
    site.open_gate("resumed")
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["resumedBy"] == "resumed"
    assert again["resumeRequested"] is False and again["currentStatus"] == "succeeded"


@pytest.mark.parametrize(
    ("action", "status", "code"),
    [
        ("accept", "succeeded", None),
        ("decline", "failed", "HUMAN_DECLINED"),
        ("cancel", "canceled", None),
    ],
)
async def test_the_person_answers_a_hand_over_through_elicitation(
    server: MCPServer, site: FixtureServer, action: str, status: str, code: str | None
) -> None:
    asked: list[str] = []
    async with client(server, action, asked) as c:
        run_id = await hand_over(c, site, f"elicited-{action}")
        answer = await finished(c, run_id)
    site.open_gate(f"elicited-{action}")
    assert answer["status"] == status, answer
    assert "Solve the check on the page." in asked[0] and "get_artifact" in asked[0]
    if action == "accept":
        assert answer["result"]["resumedBy"] == "resumed"
    if code is not None:
        assert answer["error"]["details"]["stepErrorCode"] == code


async def test_a_run_waiting_for_a_person_can_be_canceled(
    server: MCPServer, manager: RunManager, site: FixtureServer
) -> None:
    async with client(server) as c:
        run_id = await hand_over(c, site, "canceled")
        await waiting(c, run_id)
        canceled = await call(c, "cancel_task_run", runId=run_id)
        assert canceled["cancelRequested"] is True
        answer = await finished(c, run_id)
    site.open_gate("canceled")
    assert answer["status"] == "canceled", answer
    await manager.wait(run_id)  # the status is written first, then the run lets go of its tabs
    assert manager.sessions.sessions == {}  # the run's session is closed, its tabs with it


async def test_a_hand_over_nobody_finishes_fails_with_human_timeout(
    server: MCPServer, site: FixtureServer
) -> None:
    async with client(server) as c:
        run_id = await hand_over(c, site, "timeout", timeoutMs=1500)
        answer = await finished(c, run_id)
    site.open_gate("timeout")
    assert answer["status"] == "failed", answer
    assert answer["error"]["details"]["stepErrorCode"] == "HUMAN_TIMEOUT"


async def test_the_runs_page_shows_the_hand_over_and_resumes_it(
    server: MCPServer, manager: RunManager, site: FixtureServer
) -> None:
    app = ui_app(manager, UiAccess(hosts=["127.0.0.1:*"]))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with (
        client(server) as c,
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as ui,
    ):
        run_id = await hand_over(c, site, "ui")
        await waiting(c, run_id)
        page = (await ui.get(f"/runs/{run_id}")).text
        assert "Waiting for a person" in page and "Solve the check on the page." in page
        assert "class=hand-over" in page  # the screenshot, served as the run's artifact
        token = re.search(r"action='[^']*/resume'><input type=hidden name=csrf value='(\w+)'", page)
        assert token is not None, page
        refused = await ui.post(f"/runs/{run_id}/resume", data={"csrf": "0" * 64})
        assert refused.status_code == 403
        done = await ui.post(f"/runs/{run_id}/resume", data={"csrf": token.group(1)})
        assert done.status_code == 303
        answer = await finished(c, run_id)
    site.open_gate("ui")
    assert answer["result"]["resumedBy"] == "resumed"


async def test_another_process_resumes_a_waiting_run(
    server: MCPServer, manager: RunManager, site: FixtureServer
) -> None:
    async with client(server) as c:
        run_id = await hand_over(c, site, "other-process")
        await waiting(c, run_id)
        done = await anyio.run_process(
            [DSL, "runs", "resume", run_id], env=env_for(manager.home), check=False
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["resumeRequested"] is True
        answer = await finished(c, run_id)
    site.open_gate("other-process")
    assert answer["result"]["resumedBy"] == "resumed"


async def test_a_hand_over_with_a_bad_pattern_fails_at_once_and_waits_for_nobody(
    server: MCPServer, manager: RunManager, site: FixtureServer
) -> None:
    steps = [
        {"action": "navigate", "with": {"url": site.url("/human.html?gate=bad-pattern")}},
        {"action": "hand_over", "with": {"reason": "r", "until": {"urlMatches": "("}}},
    ]
    async with client(server) as c:
        answer = await call(c, "run_steps", steps=steps)
    site.open_gate("bad-pattern")
    assert answer["status"] == "failed", answer
    failed = answer["steps"][-1]
    assert failed["error"]["code"] == "INVALID_PARAMETER"
    assert "urlMatches is not a valid regular expression" in failed["error"]["message"]
    assert (await manager.store.list_runs("waiting_for_human", None, 10, 0))[1] == 0
