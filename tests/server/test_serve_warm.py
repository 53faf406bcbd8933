"""`dsl serve` warms what its first run would otherwise start: the worker process that turns
pages into Markdown runs before any call (a second of imports that no run shares its two cores
with), and it ends with the server, even one killed without a chance to end it."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client

from tests.fixtures.processes import process_alive
from tests.server.conftest import start_http, stop
from tests.server.test_serve_signals import descendants_running

pytestmark = pytest.mark.anyio


def conversion_workers(pid: int, mark: bytes = b"spawn_main") -> list[int]:
    """The spawned Python workers below a server (multiprocessing's spawn entry point), or
    with `mark=b"resource_tracker"` the tracker multiprocessing starts beside them."""
    return descendants_running(pid, mark)


async def test_a_server_warms_its_conversion_worker_before_the_first_call(
    tmp_path: Path,
) -> None:
    served = start_http(tmp_path / "home", "--trust", "local")
    try:
        with anyio.fail_after(120):  # a spawned interpreter imports lxml and trafilatura
            while not (workers := conversion_workers(served.process.pid)):
                await anyio.sleep(0.1)
        async with Client(served.url) as client:  # still serving, the worker beside it
            assert {t.name for t in (await client.list_tools()).tools} >= {"run_task_template"}
        assert all(process_alive(pid) for pid in workers)
    finally:
        stop(served)
    deadline = time.monotonic() + 10
    while [p for p in workers if process_alive(p)] and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    assert [p for p in workers if process_alive(p)] == [], "the worker outlived its server"


async def test_a_killed_server_leaves_no_conversion_worker_behind(tmp_path: Path) -> None:
    served = start_http(tmp_path / "home", "--trust", "local")
    try:
        with anyio.fail_after(120):
            while not (workers := conversion_workers(served.process.pid)):
                await anyio.sleep(0.1)
        helpers = workers + conversion_workers(served.process.pid, b"resource_tracker")
        served.process.kill()  # SIGKILL: the server ends nothing itself
        served.process.wait(timeout=10)
    finally:
        stop(served)
    deadline = time.monotonic() + 15  # a worker looks for its parent every second
    while [p for p in helpers if process_alive(p)] and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    left = [p for p in helpers if process_alive(p)]
    assert left == [], "the killed server's conversion worker (or its tracker) runs on"
