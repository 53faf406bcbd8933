"""run_steps checks its steps like `dsl validate`, off the event loop: the server answers other
calls meanwhile, and steps the checker once crashed on get an answer with an errorCode (#28)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from taskplate.contract import ErrorCode
from taskplate.dsl import CheckResult
from taskplate.server.tools import run_steps as run_steps_tool

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(server: MCPServer) -> AsyncIterator[Client]:
    async with Client(server) as connected:
        yield connected


async def run_steps(client: Client, steps: list[Any]) -> dict[str, Any]:
    result = await client.call_tool("run_steps", {"steps": steps})
    assert result.structured_content is not None
    return {"isError": bool(result.is_error), **result.structured_content}


def all_need_all(n: int) -> list[dict[str, Any]]:
    ids = [f"s{i}" for i in range(n)]
    return [
        {"id": i, "needs": [x for x in ids if x != i], "action": "wait", "with": {"ms": 1}}
        for i in ids
    ]


async def test_tools_list_answers_while_run_steps_steps_are_being_checked(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release = threading.Event(), threading.Event()
    check = run_steps_tool.check_source

    def held_check(text: str, file: str, catalog: Any) -> CheckResult:
        started.set()
        release.wait(30)  # held until tools/list has answered: only a check off the loop lets it
        return check(text, file, catalog)

    monkeypatch.setattr(run_steps_tool, "check_source", held_check)
    answers: list[dict[str, Any]] = []

    async def submit() -> None:
        answers.append(await run_steps(client, all_need_all(10)))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(submit)
        with anyio.fail_after(10):
            assert await anyio.to_thread.run_sync(started.wait, 10)
            listed = await client.list_tools()
        release.set()
    assert "run_steps" in {t.name for t in listed.tools}
    (answer,) = answers
    assert answer["isError"] and answer["errorCode"] == ErrorCode.INVALID_PARAMETER
    cycles = [d for d in answer["details"]["diagnostics"] if d["rule"] == "cycle"]
    assert len(cycles) == 1


async def test_steps_that_need_one_another_are_refused_at_once(client: Client) -> None:
    with anyio.fail_after(10):
        answer = await run_steps(client, all_need_all(12))
    assert answer["errorCode"] == ErrorCode.INVALID_PARAMETER
    assert "needs form a cycle" in answer["error"]


async def test_an_expression_in_a_list_for_an_enum_argument_is_refused_with_a_code(
    client: Client,
) -> None:
    steps = [{"action": "get_page_content", "with": {"format": ["${{ 1 }}"]}}]
    answer = await run_steps(client, steps)
    assert answer["isError"] and answer["errorCode"] == ErrorCode.INVALID_PARAMETER
    assert '"format" must be one of' in answer["error"]
