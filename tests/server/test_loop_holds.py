"""A large read holds the server's event loop briefly: while `extract` reads 100,000 records and
`snapshot` lists 100,000 elements, a second caller's tools/list goes on answering and no stretch
of the loop takes more than 100 ms of the process's CPU (#51 items 3 and 4)."""

from __future__ import annotations

import gc
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from taskplate.stdlib.reading.snapshot import MAX_ELEMENTS
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

ROWS = 100_000
BOUND_S = 0.1  # the bound on any one hold of the loop
TICK_S = 0.005


@dataclass
class Holds:
    """What a ticker on the loop saw: per tick, the process's CPU time spent between two looks
    (what held the loop, whatever the machine's load) and the wall time it overslept."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    listed: int = 0


async def measured(server: MCPServer, work: Callable[[], Awaitable[Any]]) -> tuple[Any, Holds]:
    """`work`'s answer, and the loop's holds while it ran beside a second caller's tools/list."""
    holds, done = Holds(), anyio.Event()

    async def tick() -> None:
        while not done.is_set():
            wall, cpu = time.perf_counter(), time.process_time()
            await anyio.sleep(TICK_S)
            holds.cpu.append(time.process_time() - cpu)
            holds.wall.append(time.perf_counter() - wall - TICK_S)

    async def list_meanwhile(other: Client) -> None:
        while not done.is_set():
            await other.list_tools()
            holds.listed += 1

    # A full collection walks every object of the process, the test runner's too (85 ms of CPU
    # at a load of 20 on 2 cores): frozen, so that what is measured is what the read costs.
    gc.collect()
    gc.freeze()
    answers: list[Any] = []
    try:
        async with Client(server) as other, anyio.create_task_group() as tasks:
            await other.list_tools()
            tasks.start_soon(tick)
            tasks.start_soon(list_meanwhile, other)
            answers.append(await work())
            done.set()
    finally:
        gc.unfreeze()
    return answers[0], holds


@pytest.fixture
async def client(server: MCPServer) -> AsyncIterator[Client]:
    async with Client(server) as connected:
        yield connected


async def page_of_rows(client: Client, site: FixtureServer) -> str:
    """A session whose tab shows ROWS links, written by the page's script."""
    opened = await client.call_tool("create_session", {})
    assert opened.structured_content is not None, opened
    session = opened.structured_content["sessionId"]
    args = {"sessionId": session, "url": site.url("/many.html"), "timeoutMs": 120_000}
    went = await client.call_tool("navigate", args)
    assert not went.is_error, went
    built = await client.call_tool(
        "evaluate", {"sessionId": session, "script": f"() => rows({ROWS})", "timeoutMs": 120_000}
    )
    assert built.structured_content == {"value": ROWS}, built
    return str(session)


def report(what: str, holds: Holds) -> None:
    print(
        f"{what}: the loop held at most {max(holds.cpu) * 1000:.0f} ms of CPU "
        f"({max(holds.wall) * 1000:.0f} ms of wall time) over {len(holds.cpu)} looks; "
        f"{holds.listed} tools/list answered meanwhile"
    )
    assert holds.listed > 0
    assert max(holds.cpu) < BOUND_S


async def test_a_large_extract_and_snapshot_hold_the_loop_under_100_ms(
    client: Client, server: MCPServer, site: FixtureServer
) -> None:
    with anyio.fail_after(240):
        session = await page_of_rows(client, site)
        rows = {"selector": "a.t", "all": True, "fields": {"title": {}, "link": {"attr": "href"}}}
        steps = [{"id": "read", "action": "extract", "with": {"fields": {"rows": rows}}}]
        run = {"sessionId": session, "steps": steps}

        answer, holds = await measured(server, lambda: client.call_tool("run_steps", run))
        report("extract", holds)
        assert answer.structured_content is not None, answer
        assert answer.structured_content.get("status") == "succeeded", str(answer)[:2000]

        args = {"sessionId": session, "maxBytes": 1_000_000}
        taken, holds = await measured(server, lambda: client.call_tool("snapshot", args))
        report("snapshot", holds)
        assert taken.structured_content is not None, taken
        snap = taken.structured_content
        assert snap["total"] == ROWS == MAX_ELEMENTS and "warnings" not in snap, snap["total"]
        # a page within the answer budget (80,000 characters), though 1,000,000 were asked for
        assert snap["truncated"] is True and 0 < snap["nextOffset"] < 2_000
