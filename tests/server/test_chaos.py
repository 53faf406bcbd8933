"""Chaos, bounded (#55 item 7; bench/chaos.py is the full one): two `dsl serve` on one PostgreSQL
behind HAProxy run batches of 30 local pages read over HTTP. The server running a batch is
SIGKILLed mid-way and started again: the other resumes the batch under its id, it ends
succeeded with every item once and equal to an undisturbed run's, a client polling it never sees
it fail nor its items done go back, and pages read twice are at most the pages in flight. Then a
server is stopped by SIGTERM mid-batch: it drains, hands the batch over, and no page is read
twice. Kills and stops wait on the runs' progress, never on a clock."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest

from taskplate.interpreter import open_store
from tests.fixtures.chaos import Fleet, Pages, Watch, follow, items_of, start_batch
from tests.fixtures.haproxy import balancing, haproxy_bin
from tests.fixtures.postgres import Postgres

pytestmark = pytest.mark.anyio

PAGES = 30
CONCURRENCY = 1  # read over HTTP: up to three pages of a batch in flight at once
IN_FLIGHT = 3 * CONCURRENCY


@pytest.fixture
def fleet(tmp_path: Path, postgres: Postgres) -> Iterator[Fleet]:
    try:
        haproxy_bin()
    except RuntimeError as missing:
        pytest.fail(str(missing), pytrace=False)
    with postgres.database() as url:
        fleet = Fleet(tmp_path, url, drain_s=30, start_within_s=120)  # two at once
        try:
            fleet.start("a", "b")
            yield fleet
        finally:
            fleet.close()


async def owner_when_done(fleet: Fleet, run_id: str, at_least: int) -> str:
    """The server running `run_id` once it has finished `at_least` items."""
    async with open_store(fleet.folder, fleet.store) as store:
        with anyio.fail_after(90):
            while True:
                row = await store.run(run_id)
                assert row is not None
                done = (row.progress or {}).get("items", {}).get("done", 0)
                name = fleet.pid_of(row.owner)
                if row.status == "running" and done >= at_least and name is not None:
                    return name
                await anyio.sleep(0.05)


async def disturbed(
    fleet: Fleet, url: str, pages: Pages, run: str, sig: signal.Signals
) -> tuple[dict[str, object], Watch]:
    """A batch whose server is stopped by `sig` a third of the way and started again."""
    watch = Watch()
    async with httpx2.AsyncClient(timeout=60) as http:
        run_id = await start_batch(
            http, url, [pages.url(run, i) for i in range(PAGES)], CONCURRENCY
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(follow, http, url, run_id, watch)
            victim = await owner_when_done(fleet, run_id, PAGES // 3)
            await anyio.to_thread.run_sync(fleet.stop, victim, sig)
            fleet.launch(victim)  # started again: it listens by the next stop
    return watch.last, watch


async def test_a_batch_survives_a_killed_server_and_a_drained_one(
    fleet: Fleet, tmp_path: Path
) -> None:
    with Pages(delay_ms=150) as pages, balancing(fleet.ports, tmp_path / "haproxy") as balancer:
        async with httpx2.AsyncClient(timeout=60) as http:
            calm = Watch()
            run_id = await start_batch(
                http, balancer.url, [pages.url("calm", i) for i in range(PAGES)], CONCURRENCY
            )
            await follow(http, balancer.url, run_id, calm)
        expected = [(u.replace("calm", "{}"), t, c, s) for u, t, c, s in items_of(calm.last)]
        assert calm.last["status"] == "succeeded" and len(expected) == PAGES, calm.last

        killed, watch = await disturbed(fleet, balancer.url, pages, "kill", signal.SIGKILL)
        assert killed["status"] == "succeeded", killed
        assert watch.statuses <= {"queued", "running", "succeeded"}, watch.statuses
        assert watch.went_back == 0
        got = [(u.replace("kill", "{}"), t.replace("kill", "calm"), c.replace("kill", "calm"), s)
               for u, t, c, s in items_of(killed)]  # fmt: skip
        assert got == expected
        twice = pages.read_twice()
        assert twice <= IN_FLIGHT, pages.reads

        for name in fleet.processes:
            await anyio.to_thread.run_sync(fleet.listening, name)
        drained, watch = await disturbed(fleet, balancer.url, pages, "drain", signal.SIGTERM)
        assert drained["status"] == "succeeded", drained
        assert watch.statuses <= {"queued", "running", "succeeded"}, watch.statuses
        assert watch.went_back == 0
        assert len(items_of(drained)) == PAGES
        assert pages.read_twice() == twice  # the drain read no page twice
        async with open_store(fleet.folder, fleet.store) as store:
            kinds = [e["kind"] for e in await store.events(str(drained["runId"]))]
    assert kinds == ["released", "resumed"], kinds
