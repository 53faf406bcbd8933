"""Values nest at most MAX_VALUE_DEPTH (100) levels wherever a run makes them (fromJson, an
action's result, a run's inputs, its result), so every run stays readable through the tool
that ran it, get_task_run and tasks/result; a message deeper than MAX_READ_DEPTH (128) is a
parse error of ours, before the SDK's parser. Against a real `dsl serve` on stdio."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.contract import MAX_VALUE_DEPTH
from taskplate.server.transports._jsonrpc import MAX_READ_DEPTH
from tests.server.wire import StdioWire, stdio_wire

pytestmark = pytest.mark.anyio
LEGACY = "2025-11-25"


def deep_json(levels: int) -> str:
    return "[" * levels + "]" * levels


def result(message: dict[str, Any]) -> dict[str, Any]:
    assert "result" in message, message
    found: dict[str, Any] = message["result"]
    return found


async def call(wire: StdioWire, tool: str, arguments: dict[str, Any], **extra: Any) -> Any:
    params = {"name": tool, "arguments": arguments, **extra}
    with anyio.fail_after(60):
        return await wire.request("tools/call", params)


async def readable_everywhere(wire: StdioWire, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of `steps`, read through run_steps, get_task_run and tasks/result: each answers
    a result (never a JSON-RPC error) with the same status and error code."""
    ran = result(await call(wire, "run_steps", {"steps": steps}))["structuredContent"]
    assert "runId" in ran, ran
    run_id = ran["runId"]
    got = result(await call(wire, "get_task_run", {"runId": run_id, "includeSteps": True}))
    tasked = result(await call(wire, "run_steps", {"steps": steps}, task={"ttl": 60000}))["task"][
        "taskId"
    ]
    with anyio.fail_after(60):
        final = result(await wire.request("tasks/result", {"taskId": tasked}))
    for answer in (got["structuredContent"], final["structuredContent"]):
        assert answer["status"] == ran["status"], answer
        assert (answer.get("error") or {}).get("errorCode") == (ran.get("error") or {}).get(
            "errorCode"
        )
    return dict(ran)


@pytest.mark.parametrize("levels", [300, 600, 1500])
async def test_fromjson_past_the_bound_fails_its_step_with_a_code_and_the_run_reads_back(
    home: Path, levels: int
) -> None:
    steps = [
        {
            "id": "deep",
            "action": "set",
            "with": {"v": f"${{{{ fromJson('{deep_json(levels)}') }}}}"},
        }
    ]
    async with stdio_wire(home, LEGACY) as wire:
        await wire.start()
        ran = await readable_everywhere(wire, steps)
    assert ran["status"] == "failed", ran
    step = ran["steps"][0]["error"]
    assert step["code"] == "INVALID_PARAMETER", step  # an expression failed
    said = json.dumps(ran)
    assert f"deeper than {MAX_VALUE_DEPTH} levels" in said
    assert "RecursionError" not in said and "serialization" not in said


async def test_values_at_the_bound_are_kept_whole(home: Path) -> None:
    inner = deep_json(MAX_VALUE_DEPTH - 1)  # `set`'s result wraps it once more: {"v": …}
    steps = [{"id": "deep", "action": "set", "with": {"v": f"${{{{ fromJson('{inner}') }}}}"}}]
    async with stdio_wire(home, LEGACY) as wire:
        await wire.start()
        ran = await readable_everywhere(wire, steps)
    assert ran["status"] == "succeeded", ran


async def test_an_evaluate_value_past_the_bound_is_a_coded_error(home: Path) -> None:
    script = (
        f"() => {{ let v = 1; for (let i = 0; i < {MAX_VALUE_DEPTH + 1}; i++) v = [v]; return v; }}"
    )
    steps = [{"id": "deep", "action": "evaluate", "with": {"script": script}}]
    async with stdio_wire(home, LEGACY) as wire:
        await wire.start()
        ran = await readable_everywhere(wire, steps)
    step = ran["steps"][0]["error"]
    assert ran["status"] == "failed" and step["code"] == "EXECUTION_ERROR", ran
    assert f"deeper than {MAX_VALUE_DEPTH} levels" in step["message"], step


async def test_inputs_past_the_bound_are_refused_and_a_message_past_the_read_bound_is_a_parse_error(
    home: Path,
) -> None:
    async with stdio_wire(home, LEGACY) as wire:
        await wire.start()
        inputs = json.loads(deep_json(MAX_VALUE_DEPTH + 10))
        refused = await call(
            wire, "run_task_template", {"templateId": "flow", "inputs": {"x": inputs}}
        )
        content = result(refused)["structuredContent"]
        assert content["errorCode"] == "INVALID_PARAMETER", content
        assert f"deeper than {MAX_VALUE_DEPTH} levels" in content["error"], content
        line = (
            '{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"run_task_template",'
            f'"arguments":{{"templateId":"flow","inputs":{deep_json(MAX_READ_DEPTH)}}}}}}}'
        )
        await wire.write(line.encode())
        with anyio.fail_after(20):
            answer = await wire.answer()
        assert "error" in answer, answer
        assert answer["error"]["code"] == -32700 and "deeper" in answer["error"]["message"]
        within = json.loads(line.replace(deep_json(MAX_READ_DEPTH), deep_json(MAX_READ_DEPTH - 3)))
        read = result(await wire.request("tools/call", within["params"]))["structuredContent"]
        assert read["errorCode"] == "INVALID_PARAMETER", read  # read: inputs are no object
        assert "result" in await wire.request("ping")
