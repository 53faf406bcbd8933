"""Checkpoints and adoption in the run store, on both backends (#55): checkpoints kept in the
order written, one per key, numbered in the order asked for however long each takes to write; of
many stores adopting a dead owner's run at once exactly one wins; a run's `Checkpoints` mask its
secrets and keep a large value as an artifact."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import anyio
import pytest

from taskplate.dsl import Step
from taskplate.interpreter import ArtifactStore, Store, open_store
from taskplate.interpreter._artifacts import RunArtifacts
from taskplate.interpreter._checkpoints import Checkpoints
from taskplate.stdlib._json_text import SMALL_CHARS, SMALL_NODES, json_text, small
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


async def test_checkpoints_are_numbered_in_the_order_they_were_asked_for(
    backend: tuple[Path, str | None],
) -> None:
    # A resumed growing loop admits its items again in this order: the item that finished first
    # (and grew the queue first) stays first, though its value takes longest to serialize.
    home, url = backend
    async with open_store(home, url) as opened:
        await add(opened, "run_1")
        artifacts = RunArtifacts(ArtifactStore(home / "artifacts", opened), "run_1")
        kept = Checkpoints(opened, "run_1", artifacts, ["a secret"], inline_bytes=100_000_000)
        loop = Step(pointer="/steps/0", path="pages", id="pages", action="set")
        rows = {"rows": [{"n": n} for n in range(300_000)]}
        async with anyio.create_task_group() as tg:
            tg.start_soon(kept.keep_item, loop, 0, rows, [])
            tg.start_soon(kept.keep_item, loop, 1, {"n": 1}, [])
        keys = [c["key"] for c in await opened.checkpoints("run_1")]
        assert keys == ["item:pages:0", "item:pages:1"]


def test_a_value_is_small_within_both_bounds_and_told_before_a_huge_list_is_walked() -> None:
    page = {"url": "http://x/", "content": "w " * 20_000, "links": [{"href": "h"}] * 300}
    assert small(page) and small("text") and small([[[]]])
    assert not small({"a": {"b": ["x" * (SMALL_CHARS + 1)]}})
    assert not small([{"n": n} for n in range(SMALL_NODES)])
    assert not small(list(range(10_000_000)))


async def test_a_large_value_made_in_pieces_reads_back_as_the_value() -> None:
    rows = [{"n": n, "text": "é" * (n % 7), "nested": [[n], {}]} for n in range(30_000)]
    value = {"rows": rows, "long": "x" * (SMALL_CHARS + 5), "empty": [], 7: (1, None), "z": {}}
    assert not small(value) and not small(rows)
    assert json.loads(await json_text(value)) == json.loads(json.dumps(value, ensure_ascii=False))
    assert json.loads(await json_text(rows[:3])) == rows[:3]
