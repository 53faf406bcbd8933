"""Batches on a pool of two real `playwright run-server` endpoints: runs spread over both, and an
endpoint killed (SIGKILL) mid-batch fails only the items whose work was lost there."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.browser import BrowserConfig, BrowserRuntime
from taskplate.interpreter import SHIPPED, Limits, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from tests.browser.pool import MARKER, BrowserServer, browser_servers, launch_headers, wait_gone
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


@pytest.fixture
async def pooled(
    tmp_path: Path, site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[RunManager, list[BrowserServer]]]:
    # this process's Playwright driver gets a temp folder of its own, checked empty at the end
    client_tmp = tmp_path / "client-tmp"
    client_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(client_tmp))
    with browser_servers("ws", "ws") as servers:
        config = BrowserConfig(
            endpoints=tuple(s.url for s in servers),
            endpoint_headers=launch_headers(site.server_address[1]),
        )
        library = TemplateLibrary(REGISTRY).load([SHIPPED])
        manager = RunManager(
            tmp_path / "home",
            library,
            runtime=BrowserRuntime(config),
            limits=Limits(max_concurrent_runs=4, queue_capacity=4),
        )
        try:
            async with manager.running():
                yield manager, servers
            assert manager.sessions.sessions == {} and manager.sessions.open_tabs == 0
        finally:
            await manager.runtime.close()
    assert wait_gone(MARKER) == [], "a browser of the pool was left running"
    assert list(client_tmp.iterdir()) == []
    assert not (tmp_path / "home" / "browsers").exists() or not any(
        (tmp_path / "home" / "browsers").iterdir()
    ), "the load report outlived the server"


async def endpoints_of_runs(manager: RunManager, run_ids: list[str]) -> dict[str, str]:
    """Each run's endpoint, once every run has its session open."""
    found: dict[str, str] = {}
    with anyio.fail_after(60):
        while len(found) < len(run_ids):
            for run_id in run_ids:
                row = await manager.store.run(run_id)
                sid = (row.options or {}).get("sessionId") if row is not None else None
                session = manager.sessions.sessions.get(sid) if sid else None
                if session is not None and session.endpoint:
                    found[run_id] = session.endpoint
            await anyio.sleep(0.05)
    return found


def inputs(site: FixtureServer, run: int, pages: int, ms: int) -> dict[str, Any]:
    urls = [site.url(f"/slow?ms={ms}&run={run}&n={i}") for i in range(pages)]
    return {"urls": urls, "concurrency": 3, "waitFor": 1, "engine": "browser"}


async def test_a_batch_of_runs_is_spread_over_both_endpoints(
    pooled: tuple[RunManager, list[BrowserServer]], site: FixtureServer
) -> None:
    manager, servers = pooled
    runs = [await manager.submit("batch_extract_pages", inputs(site, r, 4, 600)) for r in range(4)]
    where = await endpoints_of_runs(manager, runs)
    per_endpoint = {s.url: sum(1 for url in where.values() if url == s.url) for s in servers}
    assert per_endpoint == {servers[0].url: 2, servers[1].url: 2}, per_endpoint
    with anyio.fail_after(120):
        answers = [await manager.wait(run_id) for run_id in runs]
    assert [a["status"] for a in answers] == ["succeeded"] * 4, [a.get("error") for a in answers]
    assert all(i["success"] for a in answers for i in a["result"]["items"])
    assert {row["url"]: row["sessions"] for row in manager.runtime.status()} == {
        s.url: 0 for s in servers
    }


async def test_an_endpoint_killed_mid_batch_fails_only_the_items_it_held(
    pooled: tuple[RunManager, list[BrowserServer]], site: FixtureServer
) -> None:
    manager, servers = pooled
    # Gated pages, held until opened: the kill finds three pages of each run loading however
    # far apart the two runs' browsers started (timed pages let a late run miss the window)
    names = [[f"pool{run}-{i}" for i in range(8)] for run in (0, 1)]
    gated = {
        "urls": [site.url(f"/gate?n={name}") for name in names[0]],
        "concurrency": 3,
        "waitFor": 1,
        "engine": "browser",
    }
    runs = [
        await manager.submit("batch_extract_pages", gated),
        await manager.submit(
            "batch_extract_pages", {**gated, "urls": [site.url(f"/gate?n={n}") for n in names[1]]}
        ),
    ]
    where = await endpoints_of_runs(manager, runs)
    assert sorted(where.values()) == sorted(s.url for s in servers)  # one run on each

    def held(run: int) -> int:
        with site.gates_lock:
            return sum(1 for name in site.waiting if name in names[run])

    with anyio.fail_after(60):
        while held(0) < 3 or held(1) < 3:  # three pages of each run are loading
            await anyio.sleep(0.02)
    doomed = next(s for s in servers if s.url == where[runs[0]])
    survivor = next(s for s in servers if s is not doomed)
    doomed.kill()
    for name in names[0] + names[1]:
        site.open_gate(name)

    with anyio.fail_after(180):
        hit, spared = [await manager.wait(run_id) for run_id in runs]
    lost = [i for i in hit["result"]["items"] if not i["success"]]
    assert len(lost) == 3, hit["result"]["items"]
    for item in lost:
        assert item["error"]["code"] == "BROWSER_DISCONNECTED"
        assert doomed.url in item["error"]["message"]
    # the rest of the batch went on in the other endpoint's browser
    assert sum(1 for i in hit["result"]["items"] if i["success"]) == 5
    assert hit["status"] == "partial_success"
    assert spared["status"] == "succeeded"
    assert all(i["success"] for i in spared["result"]["items"])
    status = {row["url"]: row for row in manager.runtime.status()}
    assert status[doomed.url]["state"] == "down" and status[survivor.url]["state"] == "up"
    # nothing of the killed endpoint is left running: every pool browser is the survivor's
    with anyio.fail_after(20):
        while not set(wait_gone(MARKER, 0)) <= survivor.tree():
            await anyio.sleep(0.1)
