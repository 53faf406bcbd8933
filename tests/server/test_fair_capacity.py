"""Fair capacity among callers of one `dsl serve --transport http --token-file`: a principal's
runs hold at most its share of maxConcurrentRuns and wait queued up to its own limit, and
another principal's run starts at the next free slot, before the first one's queue; on one
server (SQLite) and across two servers on one PostgreSQL. Issue 51's reproductions, over HTTP
with two tokens."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.interpreter import DEFAULT_QUEUED, RunRow, open_store
from tests.fixtures.postgres import Postgres
from tests.server.conftest import Served, start_http, stop
from tests.server.test_ownership import Caller, caller
from tests.server.wire import MODERN

pytestmark = pytest.mark.anyio
ALPHA = "alpha-token-0123456789abcdef"
BETA = "beta-token-0123456789abcdef"
WIDE = "wide-token-0123456789abcdef"  # a principal given the whole store (max-running=5)
LONG = {"ms": 60_000, "timeout": 60_000}  # a run that holds its slot until canceled
TOKENS = (
    f"{ALPHA} remote principal=alpha\n"
    f"{BETA} remote principal=beta\n"
    f"{WIDE} remote principal=wide max-running=5 max-queued=8\n"
)


def token_file(folder: Path) -> Path:
    path = folder / "fair.tokens"
    path.write_text(TOKENS, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("fair")
    served = start_http(home, "--token-file", str(token_file(home.parent)))
    yield served
    stop(served)


@asynccontextmanager
async def callers(*pairs: tuple[Served, str]) -> AsyncIterator[list[Caller]]:
    async with AsyncExitStack() as stack:
        yield [await stack.enter_async_context(caller(s, t, MODERN)) for s, t in pairs]


async def start(who: Caller, inputs: dict[str, Any] | None = None) -> str:
    answer = await who.ok(
        "run_task_template",
        {"templateId": "pause", "inputs": inputs or LONG, "options": {"mode": "async"}},
    )
    return str(answer["runId"])


async def status(who: Caller, run_id: str) -> str:
    return str((await who.ok("get_task_run", {"runId": run_id}))["status"])


async def until(who: Caller, run_id: str, *statuses: str, seconds: float = 30) -> None:
    with anyio.fail_after(seconds):
        while await status(who, run_id) not in statuses:
            await anyio.sleep(0.05)


async def cancel_all(who: Caller, run_ids: list[str]) -> None:
    for run_id in run_ids:
        await who.ok("cancel_task_run", {"runId": run_id, "force": True})
    for run_id in run_ids:
        await until(who, run_id, "canceled", "failed", "succeeded")


async def rows(home: Path, url: str | None, *run_ids: str) -> list[RunRow]:
    async with open_store(home, url) as store:
        found = [await store.run(r) for r in run_ids]
    return [row for row in found if row is not None]


async def test_a_caller_with_runs_holding_slots_leaves_room_for_another(served: Served) -> None:
    """B starts 5 runs that hold their slots; A's one-step run_steps answers at once (it took
    59 s: B held all 5 slots). B's fifth run waits, queued: B's share is maxConcurrentRuns − 1."""
    async with callers((served, ALPHA), (served, BETA)) as (alpha, beta):
        held = [await start(beta) for _ in range(5)]
        try:
            for run_id in held[:4]:
                await until(beta, run_id, "running")
            with anyio.fail_after(15):
                done = await alpha.ok(
                    "run_steps", {"steps": [{"action": "wait", "with": {"ms": 1}}]}
                )
            assert done["status"] == "succeeded", done
            assert await status(beta, held[4]) == "queued"
        finally:
            await cancel_all(beta, held)


async def test_a_callers_long_queue_never_refuses_another(served: Served) -> None:
    """B queues 105 runs: past its own limit B is refused RUN_QUEUE_FULL naming maxQueuedRuns
    and max-queued; A is never refused for B's queue (it was, at once)."""
    async with callers((served, ALPHA), (served, BETA)) as (alpha, beta):
        mine = [await start(beta) for _ in range(4)]
        try:
            for run_id in mine:
                await until(beta, run_id, "running")
            refused = None
            for _ in range(101):
                answer = await beta.tool(
                    "run_task_template",
                    {"templateId": "pause", "inputs": LONG, "options": {"mode": "async"}},
                )
                if answer.get("isError"):
                    refused = answer["structuredContent"]
                    break
                mine.append(answer["structuredContent"]["runId"])
            assert refused is not None and refused["errorCode"] == "RUN_QUEUE_FULL", refused
            assert len(mine) == 4 + DEFAULT_QUEUED  # its slots, then its queue
            assert refused["details"]["limit"] == "maxQueuedRuns", refused
            assert refused["details"]["maxQueuedRuns"] == DEFAULT_QUEUED
            assert "max-queued=N" in refused["recoverHint"], refused
            assert "Traceback" not in str(refused)
            theirs = await start(alpha, {"ms": 1})
            await until(alpha, theirs, "succeeded", seconds=15)  # the fifth slot was free
        finally:
            await cancel_all(beta, mine)


async def next_slot_goes_to_another(
    wide: Caller, alpha: Caller, wide_on: Caller, home: Path, url: str | None
) -> None:
    """`wide` (max-running=5) holds every slot and queues more (on `wide_on` too); A's run
    waits queued; when one of wide's runs ends, A's run starts within 1 s, before wide's
    older queued runs."""
    holding = [await start(wide) for _ in range(5)]
    queued = [await start(wide_on if i % 2 else wide) for i in range(6)]
    theirs = ""
    try:
        for run_id in holding:
            await until(wide, run_id, "running")
        theirs = await start(alpha, {"ms": 1})
        assert await status(alpha, theirs) == "queued"
        await wide.ok("cancel_task_run", {"runId": holding[0], "force": True})
        await until(alpha, theirs, "succeeded", seconds=15)
        freed, started = await rows(home, url, holding[0], theirs)
        assert freed.ended_at is not None and started.started_at is not None
        waited = started.started_at - freed.ended_at
        print(f"another principal's run started {waited * 1000:.0f} ms after a slot freed")
        assert waited < 1.0, waited
        later = [row.started_at for row in await rows(home, url, *queued) if row.started_at]
        assert all(when > started.started_at for when in later)  # none started before it
    finally:
        await cancel_all(wide, holding + queued)


async def test_the_next_free_slot_goes_to_another_caller_before_a_queue(served: Served) -> None:
    async with callers((served, WIDE), (served, ALPHA)) as (wide, alpha):
        await next_slot_goes_to_another(wide, alpha, wide, served.home, None)


async def test_fair_capacity_holds_across_servers_on_postgresql(
    tmp_path: Path, postgres: Postgres
) -> None:
    """Two servers on one PostgreSQL with the same token file: wide's runs on both count
    against its one share and queue, and A's run on the other server takes the next slot."""
    tokens = token_file(tmp_path)
    with postgres.database() as url:
        servers: list[Served] = []
        try:
            for name in ("one", "two"):
                home = tmp_path / name
                home.mkdir()
                env = {"TASKPLATE_STORE": url}
                servers.append(start_http(home, "--token-file", str(tokens), env=env))
            one, two = servers
            async with callers((one, WIDE), (two, ALPHA), (two, WIDE)) as (wide, alpha, wide_2):
                await next_slot_goes_to_another(wide, alpha, wide_2, tmp_path, url)
                mine = [await start(wide) for _ in range(5)]
                try:
                    for run_id in mine:
                        await until(wide, run_id, "running")
                    mine += [await start(wide_2 if i % 2 else wide) for i in range(8)]
                    refused = await wide_2.tool(
                        "run_task_template",
                        {"templateId": "pause", "inputs": LONG, "options": {"mode": "async"}},
                    )
                    assert refused["structuredContent"]["errorCode"] == "RUN_QUEUE_FULL"
                    assert refused["structuredContent"]["details"]["queued"] == 8
                finally:
                    await cancel_all(wide, mine)
        finally:
            for served in servers:
                stop(served)
