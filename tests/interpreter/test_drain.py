"""A server that stops (SIGTERM's `RunManager.drain`): no run or item starts any more, the items
in flight finish within the grace, and each unfinished run is released in the store (no owner,
no heartbeat) with a `released` event, for another server to take over at once; past the
grace, what is left stops by force and is handed over all the same. A run submitted meanwhile
is queued for the other servers; one with a secret input is refused with a code."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from taskplate.browser import BrowserRuntime
from taskplate.contract import TaskplateError
from taskplate.interpreter import SHIPPED, Limits, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY

pytestmark = pytest.mark.anyio
HERE = Path(__file__).parent


@asynccontextmanager
async def server(home: Path, runtime: BrowserRuntime) -> AsyncIterator[RunManager]:
    """A run manager as one `dsl serve` holds it, on the data home's store."""
    library = TemplateLibrary(REGISTRY).load([SHIPPED, HERE / "templates"])
    runs = RunManager(home, library, runtime=runtime, limits=Limits(max_concurrent_runs=4))
    async with runs.running():
        yield runs


async def items_done(manager: RunManager, run_id: str, at_least: int) -> None:
    """Wait until `at_least` items of the run have finished (the items beside them, two at a
    time, are in flight)."""
    with anyio.fail_after(60):
        while True:
            live = manager.live.get(run_id)
            if live is not None and live.progress and live.progress.items_done >= at_least:
                return
            await anyio.sleep(0.02)


def items_started(steps: list[dict[str, object]]) -> set[object]:
    return {s["item_index"] for s in steps}


async def test_drain_finishes_the_items_in_flight_starts_no_other_and_releases_the_run(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    async with server(tmp_path / "home", runtime) as manager:
        run_id = await manager.submit("held_items", {"ms": [10, 600, 600, 600, 600, 600]})
        await items_done(manager, run_id, 1)  # item 1 is in flight (item 2 may be)
        late = await manager.drain(30)
        assert late == 0
        row = await manager.store.run(run_id)
        steps = await manager.step_rows(run_id)
        events = await manager.run_events(run_id)
    assert row is not None and row.status == "running", row  # not settled: it goes on elsewhere
    assert row.owner is None and row.heartbeat_at is None, row
    assert all(s["status"] == "succeeded" for s in steps), steps  # none cut off mid-way
    done = row.progress["items"]["done"]
    assert 2 <= done < 6 and items_started(steps) == set(range(done)), (done, steps)
    assert [ev["kind"] for ev in events] == ["released"], events
    assert events[0]["server"] == manager.owner and events[0]["itemsDone"] == done
    assert events[0]["graceRanOut"] is False


async def test_a_drain_past_its_grace_stops_the_run_by_force_and_hands_it_over(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    async with server(tmp_path / "home", runtime) as manager:
        run_id = await manager.submit("held_items", {"ms": [10, 60_000, 60_000, 60_000]})
        await items_done(manager, run_id, 1)  # item 1 is in flight, for a minute
        with anyio.fail_after(30):
            late = await manager.drain(0.2)
        row = await manager.store.run(run_id)
        events = await manager.run_events(run_id)
    assert late == 1
    assert row is not None and row.status == "running" and row.owner is None, row
    assert events[0]["kind"] == "released" and events[0]["graceRanOut"] is True, events


async def test_a_run_submitted_to_a_draining_server_is_queued_for_the_others(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    home = tmp_path / "home"
    async with server(home, runtime) as stopping:
        assert await stopping.drain(30) == 0
        run_id = await stopping.submit("pause", {"ms": 1})
        row = await stopping.store.run(run_id)
        assert row is not None and row.status == "queued" and row.owner is None, row
        assert run_id not in stopping.live
        await stopping.reap()  # a server that stops takes nothing over, its own included
        assert (await stopping.store.run(run_id)).owner is None  # type: ignore[union-attr]
        async with server(home, runtime) as other:
            with anyio.fail_after(60):
                answer = await other.wait(run_id)
    assert answer["status"] == "succeeded", answer
    assert len(answer["result"]["items"]) == 12


async def test_a_draining_server_refuses_a_run_with_a_secret_input_with_a_code(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    async with server(tmp_path / "home", runtime) as manager:
        await manager.drain(30)
        with pytest.raises(TaskplateError) as refused:
            await manager.submit("secret", {"password": "hunter2"})
        listed, total = await manager.store.list_runs(None, None, 10, 0)
    assert refused.value.code == "RUN_QUEUE_FULL", refused.value
    assert refused.value.recover_hint and "another server" in refused.value.recover_hint
    assert total == 0, listed  # nothing kept of it


async def test_a_drained_run_is_resumed_at_once_by_another_server_with_no_item_run_twice(
    tmp_path: Path, runtime: BrowserRuntime
) -> None:
    home = tmp_path / "home"
    async with server(home, runtime) as other:
        other.adopts = True
        async with server(home, runtime) as stopping:
            run_id = await stopping.submit("held_items", {"ms": [10, 300, 300, 300, 300, 300]})
            await items_done(stopping, run_id, 1)
            assert await stopping.drain(30) == 0
            done_there = {s["item_index"] for s in await stopping.step_rows(run_id)}
        with anyio.fail_after(60):  # its reap finds no owner: no heartbeat to wait out
            answer = await other.wait(run_id)
        steps = await other.step_rows(run_id)
        events = await other.run_events(run_id)
    assert answer["status"] == "succeeded", answer
    assert [r["ms"] for r in answer["result"]["items"]] == [10, 300, 300, 300, 300, 300]
    indexes = [s["item_index"] for s in steps]
    assert sorted(indexes) == list(range(6)), steps  # every item once: none ran twice
    assert done_there and done_there < set(indexes)
    assert [ev["kind"] for ev in events] == ["released", "resumed"], events
    resumed = events[1]
    assert resumed["server"] == other.owner and resumed["after"] == stopping.owner, resumed
    assert resumed["reason"] == "stopped" and resumed["repeated"] == [], resumed
