"""Checkpoints and adoption in the run store, on both backends (#55): checkpoints kept in the
order written, one per key; of many stores adopting a dead owner's run at once exactly one wins;
a run's `Checkpoints` mask its secrets and keep a large value as an artifact."""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest

from taskplate.dsl import Step
from taskplate.interpreter import ArtifactStore, Store, open_store
from taskplate.interpreter._artifacts import RunArtifacts
from taskplate.interpreter._checkpoints import Checkpoints
from tests.interpreter.test_store_backends import add, backend, store

pytestmark = pytest.mark.anyio
__all__ = ["backend", "store"]  # the fixtures, used by name


async def test_checkpoints_are_read_in_the_order_written_one_per_key(store: Store) -> None:
    await add(store, "run_1")
    store.keep_checkpoint("run_1", "step:open", 0, '{"a":1}')
    store.keep_checkpoint("run_1", "item:pages:1", 1, '{"result":{"success":true}}')
    store.keep_checkpoint("run_1", "step:open", 2, '{"a":2}')  # the same key: replaced
    store.keep_checkpoint("run_1", "item:pages:0", 3, None, "art_1")
    kept = await store.checkpoints("run_1")
    assert [(c["key"], c["seq"], c["value"], c["artifact_id"]) for c in kept] == [
        ("item:pages:1", 1, '{"result":{"success":true}}', None),
        ("step:open", 2, '{"a":2}', None),
        ("item:pages:0", 3, None, "art_1"),
    ]
    assert await store.checkpoints("run_other") == []


async def test_exactly_one_of_many_stores_adopts_a_dead_owners_run(
    backend: tuple[Path, str | None],
) -> None:
    home, url = backend
    async with open_store(home, url) as setup:
        await add(setup, "run_1", owner="dead")
        assert await setup.start_next("dead", 5, 0.0, lambda p: None) == "run_1"
        assert not await setup.claim("run_1", "dead", "x")  # claim takes queued runs only
    won: list[str] = []
    lock = threading.Lock()

    async def race(me: str) -> None:
        async with open_store(home, url) as mine:
            if await mine.adopt("run_1", "dead", me):
                with lock:
                    won.append(me)

    threads = [threading.Thread(target=anyio.run, args=(race, f"s{i}")) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(won) == 1, won
    async with open_store(home, url) as check:
        row = await check.run("run_1")
        assert row is not None and row.owner == won[0] and row.status == "running"
        assert not await check.adopt("run_1", "dead", "late")  # no longer the dead one's


async def test_checkpoints_mask_secrets_and_keep_large_values_as_artifacts(
    backend: tuple[Path, str | None],
) -> None:
    home, url = backend
    async with open_store(home, url) as opened:
        await add(opened, "run_1")
        artifacts = RunArtifacts(ArtifactStore(home / "artifacts", opened), "run_1")
        kept = Checkpoints(opened, "run_1", artifacts, ['pa"ss'], inline_bytes=1000)
        step = Step(pointer="/steps/0", path="s", id="s", action="set")
        await kept.keep_step(step, {"said": 'the password is pa"ss'})
        await kept.keep_item(step, 0, {"big": "x" * 5000}, [])
        await opened.flush()
        rows = await opened.checkpoints("run_1")
        assert 'pa\\"ss' not in rows[0]["value"] and "***" in rows[0]["value"], rows
        assert rows[1]["value"] is None and rows[1]["artifact_id"], rows
        found = await Checkpoints.load(opened, "run_1", artifacts, [], 1000)
        assert found.step(step) == (True, {"said": "the password is ***"})
        assert found.items(step) == [(0, {"result": {"big": "x" * 5000}, "added": []})]
