"""Scale-out, all on this machine: the same batch load against one `dsl serve` and against two
sharing one PostgreSQL store, and what the store adds to each step.

1. pages/s: R runs of batch_extract_pages (P local pages each, concurrency 2), submitted over
   MCP (streamable HTTP) round-robin to the servers, waited for, in interleaved rounds: one
   server on PostgreSQL, two servers on the same PostgreSQL, and one server on SQLite as the
   reference. maxConcurrentRuns is the same for the whole store in every set-up, so two servers
   spread the same runs over two Chromiums; on a 2-core machine expect no gain, only the cost.
2. the store's added latency per step: a run of 2000 no-op steps (`set {}`) through one run
   manager on SQLite and on PostgreSQL (ms per step; the difference is what PostgreSQL adds
   over SQLite), and the store's own write per step row (`write_step`, 1000 of them then
   one read, which writes any kept back) timed alone on each.
3. a cancel sent to one server for a run owned by the other: time until the run reads canceled.
4. cancel per engine: a batch_extract_pages of pages that answer after 1.5 s (concurrency 1)
   through one run manager, canceled (force, then cooperative) 0.3 s and 2.0 s after its first
   page went out, on engines auto, browser and http in interleaved rounds: time from the cancel
   to the run reading canceled (targets: force 0.5 s, cooperative 1.5 + 0.5 s).

A real PostgreSQL (Debian's package) is started in a temporary folder and removed at the end.
Run: .venv/bin/python bench/scale.py [rounds] [runs] [pages]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from _setup import NOOP_STEPS, NOOP_TEMPLATE
from _setup import site_in_process as serve_in_process
from mcp.client.client import Client

from taskplate.interpreter import SHIPPED, Limits, RunManager, TemplateLibrary, open_store
from taskplate.stdlib import REGISTRY
from tests.fixtures.postgres import running_postgres
from tests.fixtures.server import FixtureServer
from tests.fixtures.server import serve as serve_site
from tests.server.conftest import Served, start_http, stop

LIMIT = 4  # maxConcurrentRuns of the whole store, in every set-up
PAGES = ["/article.html", "/recipe.html", "/js.html", "/latin1"]


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} (min {min(values):.2f}, max {max(values):.2f})"


def servers(folder: Path, name: str, count: int, store: str | None) -> list[Served]:
    out = []
    for i in range(count):
        home = folder / f"{name}-{i}"
        home.mkdir()
        env = {"TASKPLATE_MAX_CONCURRENT_RUNS": str(LIMIT)}
        if store:
            env["TASKPLATE_STORE"] = store
        out.append(start_http(home, "--trust", "local", env=env))
    return out


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None and not result.is_error, result
    return dict(result.structured_content)


async def batch(served: list[Served], urls: list[str], runs: int) -> float:
    """pages/s of `runs` runs of `urls`, spread round-robin over the servers."""
    clients = [Client(s.url) for s in served]
    for client in clients:
        await client.__aenter__()
    try:
        start = time.perf_counter()
        ids = []
        for i in range(runs):
            answer = await call(
                clients[i % len(clients)],
                "run_task_template",
                templateId="batch_extract_pages",
                inputs={"urls": urls, "concurrency": 2, "waitFor": 1},
                options={"mode": "async"},
            )
            ids.append(answer["runId"])
        for run_id in ids:
            while True:
                run = await call(clients[0], "get_task_run", runId=run_id)
                if run["status"] not in ("queued", "running"):
                    break
                await anyio.sleep(0.05)
            assert run["status"] == "succeeded", run
        return runs * len(urls) / (time.perf_counter() - start)
    finally:
        for client in reversed(clients):
            await client.__aexit__(None, None, None)


async def step_cost(folder: Path, store: str | None) -> float:
    """ms per no-op step of one run through a run manager on this store."""
    templates = folder / "noop"
    templates.mkdir(exist_ok=True)
    (templates / "noop.yaml").write_text(NOOP_TEMPLATE)
    library = TemplateLibrary(REGISTRY).load([templates])
    home = Path(tempfile.mkdtemp(dir=folder))
    manager = RunManager(home, library, limits=Limits(), store=store)
    async with manager.running():
        start = time.perf_counter()
        answer = await manager.wait(
            await manager.submit("noop_loop", {"items": list(range(NOOP_STEPS))})
        )
        took = (time.perf_counter() - start) / NOOP_STEPS * 1000
    assert answer["status"] == "succeeded", answer
    return took


async def write_cost(folder: Path, store: str | None, count: int = 1000) -> float:
    """ms per `write_step`, the store's write for every step execution."""
    async with open_store(Path(tempfile.mkdtemp(dir=folder)), store) as opened:
        start = time.perf_counter()
        for seq in range(count):
            await opened.write_step(
                "run_bench", seq, step_id="s", action="set", status="succeeded", attempts=1
            )
        await opened.cancel_flag("run_bench")  # a read: every record kept back is written by then
        return (time.perf_counter() - start) / count * 1000


async def cross_cancel(two: list[Served]) -> float:
    async with Client(two[0].url) as owner, Client(two[1].url) as other:
        answer = await call(
            owner,
            "run_task_template",
            templateId="pause",
            inputs={"ms": 5000},
            options={"mode": "async"},
        )
        run_id = answer["runId"]
        while (await call(other, "get_task_run", runId=run_id))["status"] != "running":
            await anyio.sleep(0.05)
        start = time.perf_counter()
        await call(other, "cancel_task_run", runId=run_id, force=True)
        while (await call(other, "get_task_run", runId=run_id))["status"] == "running":
            await anyio.sleep(0.01)
        return (time.perf_counter() - start) * 1000


async def engine_cancel(
    manager: RunManager, site: FixtureServer, engine: str, force: bool, after_s: float
) -> float:
    """ms from a cancel `after_s` into a run's first page read to the run reading canceled."""
    urls = [site.url(f"/slow?ms=1500&n={engine}-{time.time_ns()}-{i}") for i in range(6)]
    run_id = await manager.submit(
        "batch_extract_pages",
        {"urls": urls, "concurrency": 1, "engine": engine},
        options={"timeoutMs": 60_000},
    )
    while site.traffic.inflight == 0:
        await anyio.sleep(0.005)
    await anyio.sleep(after_s)
    start = time.perf_counter()
    await manager.cancel(run_id, force=force)
    while (await manager.row(run_id)).status != "canceled":
        await anyio.sleep(0.005)
    took = (time.perf_counter() - start) * 1000
    await manager.wait(run_id)
    while site.traffic.inflight:  # the next run starts with nothing in flight
        await anyio.sleep(0.02)
    return took


async def engine_cancels(folder: Path, rounds: int) -> None:
    kinds = [
        (e, f, a) for e in ("auto", "browser", "http") for f in (True, False) for a in (0.3, 2.0)
    ]
    took: dict[tuple[str, bool, float], list[float]] = {k: [] for k in kinds}
    with serve_site() as site:
        library = TemplateLibrary(REGISTRY).load([SHIPPED])
        manager = RunManager(Path(tempfile.mkdtemp(dir=folder)), library, limits=Limits())
        async with manager.running():
            await manager.warm()
            for n in range(rounds):
                for kind in kinds if n % 2 == 0 else list(reversed(kinds)):
                    took[kind].append(await engine_cancel(manager, site, *kind))
    print(f"\n4. cancel per engine, 1.5 s pages, ms until canceled ({rounds} rounds interleaved)")
    for (engine, force, after), values in took.items():
        how = "force      " if force else "cooperative"
        print(f"   {engine:<8} {how} {after:.1f} s in: {spread(values)}")


async def main(rounds: int, runs: int, pages: int) -> None:
    print(f"load before: {os.getloadavg()[0]:.1f} (1-min average), {os.cpu_count()} cores")
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_postgres() as postgres,
        serve_in_process() as base,
    ):
        folder = Path(tmp)
        await engine_cancels(folder, rounds)
        urls = [f"{base}{PAGES[i % len(PAGES)]}?n={i}" for i in range(pages)]
        steps: dict[str, list[float]] = {"sqlite": [], "postgresql": []}
        writes: dict[str, list[float]] = {"sqlite": [], "postgresql": []}
        for n in range(rounds):
            for kind in ("sqlite", "postgresql") if n % 2 == 0 else ("postgresql", "sqlite"):
                url = None
                if kind == "postgresql":
                    url = postgres.url(postgres.create_database())
                steps[kind].append(await step_cost(folder, url))
                writes[kind].append(await write_cost(folder, url))
        print(
            f"\n2. no-op step through the run manager ({NOOP_STEPS} steps, {rounds} rounds), ms/step"
        )
        for kind in steps:
            print(f"   {kind:<11} {spread(steps[kind])}   write_step alone: {spread(writes[kind])}")
        added = [p - s for p, s in zip(steps["postgresql"], steps["sqlite"], strict=True)]
        print(f"   PostgreSQL adds over SQLite, per step: {spread(added)} ms (target < 2 ms)")

        setups = {
            "one server, SQLite": servers(folder, "sqlite", 1, None),
            "one server, PostgreSQL": servers(
                folder, "pg1", 1, postgres.url(postgres.create_database())
            ),
        }
        shared = postgres.url(postgres.create_database())
        setups["two servers, one PostgreSQL"] = servers(folder, "pg2", 2, shared)
        try:
            rates: dict[str, list[float]] = {name: [] for name in setups}
            for n in range(rounds):
                order = list(setups) if n % 2 == 0 else list(reversed(setups))
                for name in order:
                    rates[name].append(await batch(setups[name], urls, runs))
            print(
                f"\n1. pages/s, {runs} runs x {pages} pages, maxConcurrentRuns {LIMIT} per store,"
                f" {rounds} rounds interleaved"
            )
            for name, values in rates.items():
                print(f"   {name:<28} {spread(values)}")
            base_rate = statistics.median(rates["one server, PostgreSQL"])
            two_rate = statistics.median(rates["two servers, one PostgreSQL"])
            print(f"   two servers / one server on PostgreSQL: {two_rate / base_rate:.2f}x")
            cancels = [
                await cross_cancel(setups["two servers, one PostgreSQL"]) for _ in range(rounds)
            ]
            print(
                f"\n3. cross-server cancel (force), ms until canceled: {spread(cancels)} (target 1000)"
            )
        finally:
            for group in setups.values():
                for served in group:
                    stop(served)
    print(f"\nload after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    arguments = [int(a) for a in sys.argv[1:4]]
    anyio.run(main, *(arguments + [3, 4, 8][len(arguments) :]))
