"""MCP Tasks through `dsl serve` on both protocol lines: 2025-11-25 (tasks in core: task-augmented
tools/call, tasks/get, tasks/result, tasks/list, tasks/cancel, notifications/tasks/status) and
2026-07-28 (the extension io.modelcontextprotocol/tasks: task handles, tasks/get with the result,
tasks/update answering questions, tasks/cancel). A task is a run: its id is the run id. Every
answer is checked against the published Tasks schemas (@modelcontextprotocol/ext-tasks, Zod, in
Node: tests/interop/task_schemas.mjs)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from taskplate.interpreter import RunRow
from taskplate.server._task_asks import ON_RESULT_S
from taskplate.server._task_wire import legacy_task, poll_interval_ms
from tests.fixtures.server import FixtureServer
from tests.interop.conftest import HERE, NODE, require_node
from tests.server.conftest import start_http, stop
from tests.server.test_human import TEMPLATES as HUMAN
from tests.server.wire import HttpWire, Wire, stdio_wire

pytestmark = pytest.mark.anyio
LEGACY, MODERN = "2025-11-25", "2026-07-28"
EXTENSION = "io.modelcontextprotocol/tasks"
CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


def conforms(*cases: tuple[str, Any]) -> None:
    """Each value conforms to its published schema (`v1.Name` 2025-11-25, `v2.Name` 2026-07-28)."""
    node = require_node(NODE)
    done = subprocess.run(
        [str(node), "task_schemas.mjs"],
        cwd=HERE,
        input=json.dumps([list(c) for c in cases]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    problems = json.loads(done.stdout)
    assert problems == [None] * len(cases), list(zip([c[0] for c in cases], problems, strict=True))


def result(answer: dict[str, Any]) -> dict[str, Any]:
    assert "result" in answer, answer
    out: dict[str, Any] = answer["result"]
    return out


def error(answer: dict[str, Any], code: int) -> str:
    assert answer.get("error", {}).get("code") == code, answer
    message: str = answer["error"]["message"]
    return message


async def tasked(wire: Wire, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments, "task": {"ttl": 60000}}
    return await wire.request("tools/call", params)


async def until(wire: Wire, task_id: str, *statuses: str, **meta: Any) -> dict[str, Any]:
    """tasks/get until the task has one of `statuses` (bounded)."""
    with anyio.fail_after(60):
        while True:
            task = result(await wire.request("tasks/get", {"taskId": task_id, **meta}))
            if task["status"] in statuses:
                return task
            await anyio.sleep(0.1)


def statuses(wire: Wire) -> list[dict[str, Any]]:
    return [n for n in wire.notes if n["method"] == "notifications/tasks/status"]


# -- 2025-11-25 -------------------------------------------------------------------------------


async def test_a_task_on_2025_11_25_is_a_run_followed_to_its_result(home: Path) -> None:
    async with stdio_wire(home, LEGACY) as wire:
        capabilities = result(await wire.start())["capabilities"]
        assert capabilities["tasks"] == {
            "list": {},
            "cancel": {},
            "requests": {"tools": {"call": {}}},
        }
        tools = {t["name"]: t for t in result(await wire.request("tools/list"))["tools"]}
        supporting = {n for n, t in tools.items() if t.get("execution")}
        assert supporting == {"run_task_template", "run_steps"}
        created = result(await tasked(wire, "run_task_template", {"templateId": "pause"}))
        task_id = created["task"]["taskId"]
        assert task_id.startswith("run_") and created["task"]["status"] == "working"
        got = result(await wire.request("tasks/get", {"taskId": task_id}))
        final = result(await wire.request("tasks/result", {"taskId": task_id}))
        assert final["structuredContent"]["runId"] == task_id
        assert final["structuredContent"]["status"] == "succeeded"
        assert final["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task_id}
        listed = result(await wire.request("tasks/list"))  # stdio is the operator: every task
        assert listed["tasks"][0]["taskId"] == task_id
        assert listed["tasks"][0]["status"] == "completed"
        # the run is the task: get_task_run reads the same run
        run = await wire.request(
            "tools/call", {"name": "get_task_run", "arguments": {"runId": task_id}}
        )
        assert result(run)["structuredContent"]["status"] == "succeeded"
        notes = [n for n in wire.notes if n["method"] == "notifications/tasks/status"]
        assert notes and notes[-1]["params"]["status"] == "completed", notes
        steps = await tasked(wire, "run_steps", {"steps": [{"action": "set", "with": {"a": 1}}]})
        steps_id = result(steps)["task"]["taskId"]
        steps_final = result(await wire.request("tasks/result", {"taskId": steps_id}))
        assert steps_final["structuredContent"]["status"] == "succeeded", steps_final
        assert steps_final["structuredContent"]["steps"], steps_final
        conforms(
            ("v1.ServerTaskCapabilitiesV1Schema", capabilities["tasks"]),
            *[("v1.ToolV1Schema", tools[n]) for n in sorted(supporting)],
            ("v1.CreateTaskResultV1Schema", created),
            ("v1.GetTaskResultV1Schema", got),
            ("v1.CallToolResultV1Schema", final),
            ("v1.CallToolResultV1Schema", steps_final),
            ("v1.ListTasksResultV1Schema", listed),
            *[("v1.TaskStatusNotificationV1Schema", n) for n in notes],
        )


async def test_a_failed_or_canceled_task_and_bad_task_requests_on_2025_11_25(home: Path) -> None:
    async with stdio_wire(home, LEGACY) as wire:
        await wire.start()
        failing = {"templateId": "pause", "inputs": {"ms": 2000, "timeout": 100}}
        failed_id = result(await tasked(wire, "run_task_template", failing))["task"]["taskId"]
        failed = result(await wire.request("tasks/result", {"taskId": failed_id}))
        assert failed["isError"] is True or failed["structuredContent"]["status"] == "failed"
        failed_task = result(await wire.request("tasks/get", {"taskId": failed_id}))
        assert failed_task["status"] == "failed"

        long = {"templateId": "pause", "inputs": {"ms": 30000}}
        long_id = result(await tasked(wire, "run_task_template", long))["task"]["taskId"]
        await until(wire, long_id, "working")
        canceled = result(await wire.request("tasks/cancel", {"taskId": long_id}))
        assert canceled["status"] == "cancelled", canceled
        after = result(await wire.request("tasks/result", {"taskId": long_id}))
        assert after["structuredContent"]["status"] == "canceled", after
        again = await wire.request("tasks/cancel", {"taskId": long_id})
        assert "already ended" in error(again, -32602)

        # a task whose run cannot start is the tool's own error answer, with its code
        refused = result(await tasked(wire, "run_task_template", {"templateId": "nope"}))
        assert refused["isError"] is True
        assert refused["structuredContent"]["errorCode"] == "TEMPLATE_NOT_FOUND", refused
        unknown = await wire.request("tasks/get", {"taskId": "run_00000000000000000000000000"})
        error(unknown, -32602)
        error(await wire.request("tasks/result", {"taskId": "nope"}), -32602)
        not_supported = await tasked(wire, "list_task_runs", {})
        assert "does not support task" in error(not_supported, -32601)
        # the 2026-07-28 method is no method of this line
        error(await wire.request("tasks/update", {"taskId": long_id, "inputResponses": {}}), -32601)
        conforms(
            ("v1.GetTaskResultV1Schema", failed_task),
            ("v1.CallToolResultV1Schema", failed),
            ("v1.CancelTaskResultV1Schema", canceled),
            ("v1.CallToolResultV1Schema", after),
            ("v1.CallToolResultV1Schema", refused),
        )


async def test_a_run_waiting_for_a_person_is_an_input_required_task_on_2025_11_25(
    home: Path, site: FixtureServer
) -> None:
    async with stdio_wire(home, LEGACY, "--templates", str(HUMAN)) as wire:
        await wire.start()
        url = site.url("/human.html?gate=legacy-task")
        created = await tasked(
            wire, "run_task_template", {"templateId": "handed_over", "inputs": {"url": url}}
        )
        task_id = result(created)["task"]["taskId"]
        waiting = await until(wire, task_id, "input_required")
        assert "Solve the check on the page." in waiting["statusMessage"], waiting
        with anyio.fail_after(30):  # its notification too, while the run still waits
            while not any(n["params"]["status"] == "input_required" for n in statuses(wire)):
                await until(wire, task_id, "input_required")
                await anyio.sleep(0.1)
        site.open_gate("legacy-task")  # the person did it: the page shows #done
        final = result(await wire.request("tasks/result", {"taskId": task_id}))
        assert final["structuredContent"]["status"] == "succeeded", final
        # The end's notification and tasks/result's answer are sent apart (a watcher of the run
        # and the request's own wait): the one may come after the other, so it is waited for.
        with anyio.fail_after(30):
            while not any(n["params"]["status"] == "completed" for n in statuses(wire)):
                await until(wire, task_id, "completed")
                await anyio.sleep(0.1)
        notes = [n["params"] for n in statuses(wire)]
        assert [n["status"] for n in notes if n["status"] != "working"] == [
            "input_required",
            "completed",
        ], notes
        conforms(
            ("v1.GetTaskResultV1Schema", waiting),
            *[("v1.TaskV1Schema", n) for n in notes],
        )


async def eliciting(wire: Wire) -> None:
    """The 2025-11-25 handshake of a client that can be asked (elicitation)."""
    await wire.request(
        "initialize",
        {
            "protocolVersion": LEGACY,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"},
        },
    )
    await wire.notify("notifications/initialized")


async def test_a_tasks_question_is_asked_on_its_tasks_result_on_2025_11_25(home: Path) -> None:
    """A confirm step of a task: the task is input_required while it asks, and the question is an
    elicitation/create that names the task (related-task), sent on the task's tasks/result."""
    async with stdio_wire(home, LEGACY, "--templates", str(HUMAN)) as wire:
        await eliciting(wire)
        created = await tasked(wire, "run_task_template", {"templateId": "confirmed"})
        task_id = result(created)["task"]["taskId"]
        waiting = await until(wire, task_id, "input_required")  # asked of nobody yet
        assert "tasks/result" in waiting["statusMessage"], waiting
        wire.next_id += 1
        await wire.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": wire.next_id,
                    "method": "tasks/result",
                    "params": {"taskId": task_id},
                }
            ).encode()
        )
        with anyio.fail_after(30):
            asked = await wire.read()
            while asked.get("method") != "elicitation/create":
                wire.notes.append(asked)
                asked = await wire.read()
        assert asked["params"]["message"] == "Submit the order for tea?"
        assert asked["params"]["_meta"]["io.modelcontextprotocol/related-task"] == {
            "taskId": task_id
        }
        reply = {"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {}}}
        await wire.write(json.dumps(reply).encode())
        final = result(await wire.answer())
        assert final["structuredContent"]["status"] == "succeeded", final
        assert final["structuredContent"]["result"] == {"order": {"ordered": "tea"}, "after": True}
        done = result(await wire.request("tasks/get", {"taskId": task_id}))
        assert done["status"] == "completed"
        conforms(("v1.GetTaskResultV1Schema", waiting), ("v1.GetTaskResultV1Schema", done))


async def test_a_tasks_question_reaches_a_requester_that_only_polls_on_2025_11_25(
    home: Path,
) -> None:
    """No tasks/result came within ON_RESULT_S: the question goes over the connection, still
    naming its task, and the answer lets the run go on."""
    async with stdio_wire(home, LEGACY, "--templates", str(HUMAN)) as wire:
        await eliciting(wire)
        created = await tasked(wire, "run_task_template", {"templateId": "confirmed"})
        task_id = result(created)["task"]["taskId"]
        with anyio.fail_after(ON_RESULT_S + 30):
            asked = await wire.read()
            while asked.get("method") != "elicitation/create":
                asked = await wire.read()
        assert asked["params"]["_meta"]["io.modelcontextprotocol/related-task"] == {
            "taskId": task_id
        }
        reply = {"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}}
        await wire.write(json.dumps(reply).encode())
        failed = await until(wire, task_id, "failed")
        assert "the user declined" in failed["statusMessage"], failed


async def test_a_task_is_its_callers_own_over_http(home: Path) -> None:
    served = start_http(home)
    try:
        async with httpx2.AsyncClient(timeout=60) as client:
            owner, other = (
                HttpWire(client, served.url, LEGACY),
                HttpWire(client, served.url, LEGACY),
            )
            await owner.start()
            await other.start()
            created = await tasked(owner, "run_task_template", {"templateId": "pause"})
            task_id = result(created)["task"]["taskId"]
            other.errors_answered = True
            for method in ("tasks/get", "tasks/result", "tasks/cancel"):
                foreign = await other.request(method, {"taskId": task_id})
                assert "no task" in error(foreign, -32602), method
            assert result(await other.request("tasks/list")) == {"tasks": []}
            final = result(await owner.request("tasks/result", {"taskId": task_id}))
            assert final["structuredContent"]["status"] == "succeeded"
            listed = result(await owner.request("tasks/list"))
            assert [t["taskId"] for t in listed["tasks"]] == [task_id]
    finally:
        stop(served)


# -- 2026-07-28 -------------------------------------------------------------------------------


def declaring(*extra: str) -> dict[str, Any]:
    """The request `_meta` of a client that declared the Tasks extension (and `extra`)."""
    return {CAPABILITIES: {"extensions": {EXTENSION: {}}, **{e: {} for e in extra}}}


async def call(wire: Wire, arguments: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    params = {"name": "run_task_template", "arguments": arguments, "_meta": meta}
    return result(await wire.request("tools/call", params))


async def test_the_tasks_extension_on_2026_07_28(home: Path) -> None:
    async with stdio_wire(home, MODERN, "--templates", str(HUMAN)) as wire:
        discovered = result(await wire.start())
        assert EXTENSION in discovered["capabilities"]["extensions"], discovered
        meta = declaring()
        later = {"templateId": "pause", "options": {"mode": "async"}}
        handle = await call(wire, later, meta)
        assert handle["resultType"] == "task" and handle["taskId"].startswith("run_"), handle
        done = await until(wire, handle["taskId"], "completed", "failed", _meta=meta)
        assert done["status"] == "completed", done
        assert done["result"]["structuredContent"]["status"] == "succeeded"
        # without the extension, or a sync run: the answers of today
        plain = await call(wire, later, {})
        assert plain["structuredContent"]["status"] == "queued", plain
        sync = await call(wire, {"templateId": "pause", "options": {"mode": "sync"}}, meta)
        assert sync["structuredContent"]["status"] == "succeeded", sync

        failing = {**later, "inputs": {"ms": 2000, "timeout": 100}}
        failed_handle = await call(wire, failing, meta)
        failed = await until(wire, failed_handle["taskId"], "completed", "failed", _meta=meta)
        assert failed["status"] == "failed", failed
        assert failed["error"]["data"]["errorCode"], failed  # the run's own error code
        assert failed["error"]["data"]["result"]["structuredContent"]["status"] == "failed"

        long = await call(wire, {**later, "inputs": {"ms": 30000}}, meta)
        canceled = result(
            await wire.request("tasks/cancel", {"taskId": long["taskId"], "_meta": meta})
        )
        gone = await until(wire, long["taskId"], "cancelled", _meta=meta)
        unknown = await wire.request("tasks/get", {"taskId": "run_nope", "_meta": meta})
        error(unknown, -32602)
        conforms(
            ("v2.CreateTaskResultV2Schema", handle),
            ("v2.GetTaskResultV2Schema", done),
            ("v2.GetTaskResultV2Schema", failed),
            ("v2.CancelTaskResultV2Schema", canceled),
            ("v2.GetTaskResultV2Schema", gone),
        )


async def test_a_task_asks_and_tasks_update_answers_on_2026_07_28(home: Path) -> None:
    async with stdio_wire(home, MODERN, "--templates", str(HUMAN)) as wire:
        await wire.start()
        meta = declaring("elicitation")
        asking = {
            "templateId": "confirmed",
            "inputs": {"item": "tea"},
            "options": {"mode": "async"},
        }
        handle = await call(wire, asking, meta)
        waiting = await until(wire, handle["taskId"], "input_required", _meta=meta)
        [(key, question)] = waiting["inputRequests"].items()
        assert question["method"] == "elicitation/create"
        assert "Submit the order for tea?" in question["params"]["message"]
        wrong = await wire.request(
            "tasks/update",
            {"taskId": handle["taskId"], "inputResponses": {key: {"nope": 1}}, "_meta": meta},
        )
        error(wrong, -32602)
        updated = result(
            await wire.request(
                "tasks/update",
                {
                    "taskId": handle["taskId"],
                    "inputResponses": {key: {"action": "accept"}},
                    "_meta": meta,
                },
            )
        )
        done = await until(wire, handle["taskId"], "completed", "failed", _meta=meta)
        assert done["result"]["structuredContent"]["result"]["order"] == {"ordered": "tea"}, done
        conforms(
            ("v2.GetTaskResultV2Schema", waiting),
            ("v2.UpdateTaskResultV2Schema", updated),
            ("v2.GetTaskResultV2Schema", done),
        )


def row(progress: dict[str, Any], started: float) -> RunRow:
    return RunRow(
        "run_x",
        "pause",
        "1.0.0",
        "running",
        {},
        {},
        progress,
        None,
        None,
        0.0,
        0.0,
        started,
        None,
        None,
        None,
        None,
    )


def test_poll_interval_follows_the_runs_pace() -> None:
    """A tenth of the time the run still needs at its pace so far, within 0.5 to 5 s."""
    items = {"totalSteps": 1, "doneSteps": 0, "items": {"total": 100, "done": 50}}
    assert poll_interval_ms(row(items, 0.0), now=20.0) == 2000  # 20 s more: ask every 2 s
    assert poll_interval_ms(row(items, 0.0), now=1.0) == 500  # nearly done: not more often
    assert poll_interval_ms(row(items, 0.0), now=600.0) == 5000  # long: not less often
    steps = {"totalSteps": 4, "doneSteps": 1}
    assert poll_interval_ms(row(steps, 0.0), now=10.0) == 3000
    assert poll_interval_ms(row({"totalSteps": 4, "doneSteps": 0}, 0.0), now=10.0) == 2000


def test_a_running_tasks_status_message_says_its_progress_as_the_runs_page_does() -> None:
    items = {"total": 29, "done": 28, "succeeded": 28, "failed": 0, "growing": True}
    task = legacy_task(row({"totalSteps": 90, "doneSteps": 85, "items": items}, 0.0))
    assert task["statusMessage"] == (
        "run run_x running: 28 of 29+ items done (the loop grows: the total is what is known so far)"
    )
