"""A cancel of batch_extract_pages on each engine, over real Chromium and plain HTTP against pages
that answer late: force ends the run at once and leaves no read in flight, no tab open; a
cooperative cancel lets the pages in flight finish and starts none. The bounds have slack (x2)
for a loaded machine; bench/scale.py measures them."""

from __future__ import annotations

import time

import anyio
import pytest

from taskplate.interpreter import RunManager
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

ENGINES = ["auto", "browser", "http"]
PAGE_S = 1.5


async def started(manager: RunManager, site: FixtureServer, engine: str, ms: int) -> str:
    urls = [site.url(f"/slow?ms={ms}&n={engine}-{time.time_ns()}-{i}") for i in range(6)]
    inputs = {"urls": urls, "concurrency": 1, "engine": engine}
    run_id = await manager.submit("batch_extract_pages", inputs, options={"timeoutMs": 60_000})
    with anyio.fail_after(20):
        while site.traffic.inflight == 0:  # a page is being read
            await anyio.sleep(0.01)
    return run_id


async def canceled_after(manager: RunManager, run_id: str, force: bool) -> float:
    asked = time.monotonic()
    await manager.cancel(run_id, force=force)
    with anyio.fail_after(20):
        while (await manager.row(run_id)).status != "canceled":
            await anyio.sleep(0.01)
    return time.monotonic() - asked


@pytest.mark.parametrize("engine", ENGINES)
async def test_force_ends_the_run_at_once_and_leaves_no_read_in_flight(
    manager: RunManager, site: FixtureServer, engine: str
) -> None:
    run_id = await started(manager, site, engine, 30_000)  # pages that would take 30 s
    took = await canceled_after(manager, run_id, force=True)
    assert took < 2 * 0.5, took
    await manager.wait(run_id)
    with anyio.fail_after(5):  # the site sees each reader's connection closed
        while site.traffic.inflight:
            await anyio.sleep(0.02)
    assert manager.sessions.open_tabs == 0


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_cooperative_cancel_ends_within_a_page(
    manager: RunManager, site: FixtureServer, engine: str
) -> None:
    run_id = await started(manager, site, engine, int(PAGE_S * 1000))
    took = await canceled_after(manager, run_id, force=False)
    assert took < 2 * (PAGE_S + 0.5), took
    answer = await manager.wait(run_id)
    assert answer["result"]["summary"]["skipped"] >= 1, answer["result"]["summary"]
