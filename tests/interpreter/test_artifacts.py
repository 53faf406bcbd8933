"""Artifacts: chunked reads reassemble byte-identical; TTL from the run's end deletes the data."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import ArtifactStore, RunStore

pytestmark = pytest.mark.anyio


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[RunStore]:
    async with RunStore(tmp_path / "runs.db") as opened:
        await opened.insert_run("run_1", "t", "1.0.0", {}, {}, "me")
        yield opened


def make(store: RunStore, tmp_path: Path, ttl_ms: int) -> ArtifactStore:
    return ArtifactStore(tmp_path / "artifacts", store, ttl_ms)


async def test_chunks_reassemble_byte_identical(store: RunStore, tmp_path: Path) -> None:
    artifacts = make(store, tmp_path, 60_000)
    data = os.urandom(300_000)
    artifact_id = await artifacts.save("run_1", "blob.bin", data, "application/octet-stream")
    parts, offset = [], 0
    while True:
        chunk = await artifacts.read(artifact_id, offset, 65_536)
        parts.append(chunk.data)
        offset += len(chunk.data)
        if chunk.complete:
            break
    assert b"".join(parts) == data and len(parts) == 5
    with pytest.raises(TaskplateError) as caught:
        await artifacts.read(artifact_id, offset=400_000)
    assert caught.value.code is ErrorCode.INVALID_PARAMETER


async def test_unknown_artifact(store: RunStore, tmp_path: Path) -> None:
    artifacts = make(store, tmp_path, 60_000)
    with pytest.raises(TaskplateError) as caught:
        await artifacts.read("art_nope")
    assert caught.value.code is ErrorCode.ARTIFACT_NOT_FOUND and caught.value.recover_hint


async def test_ttl_counts_from_the_runs_end_and_deletes_the_data(
    store: RunStore, tmp_path: Path
) -> None:
    artifacts = make(store, tmp_path, 50)
    artifact_id = await artifacts.save("run_1", "a.txt", b"hello", "text/plain")
    time.sleep(0.1)
    assert (await artifacts.read(artifact_id)).data == b"hello"  # the run has not ended: no TTL yet
    await store.update_run("run_1", status="succeeded", ended_at=time.time())
    time.sleep(0.1)
    with pytest.raises(TaskplateError) as caught:
        await artifacts.read(artifact_id)
    assert caught.value.code is ErrorCode.ARTIFACT_EXPIRED
    assert not (tmp_path / "artifacts" / "run_1" / artifact_id).exists()
    with pytest.raises(TaskplateError) as caught:
        await artifacts.read(artifact_id)
    assert caught.value.code is ErrorCode.ARTIFACT_EXPIRED


async def test_sweep_deletes_every_expired_artifact(store: RunStore, tmp_path: Path) -> None:
    artifacts = make(store, tmp_path, 1)
    ids = [await artifacts.save("run_1", f"{i}.txt", b"x", "text/plain") for i in range(3)]
    await store.update_run("run_1", status="failed", ended_at=time.time() - 1)
    assert await artifacts.sweep() == 3
    assert all(not (tmp_path / "artifacts" / "run_1" / i).exists() for i in ids)


def test_many_processes_can_create_the_store_at_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    root, db, start = str(Path(__file__).parents[2]), str(tmp_path / "runs.db"), time.time() + 3
    code = (
        f"import sys, time; sys.path.insert(0, {root!r}); from pathlib import Path; from taskplate.interpreter import RunStore; "
        f"time.sleep(max(0, {start!r} - time.time())); RunStore(Path({db!r})).db.close()"  # all at the same instant
    )
    started = [
        subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
        for _ in range(8)
    ]
    errors = [p.communicate(timeout=60)[1] for p in started]
    assert [p.returncode for p in started] == [0] * 8, errors
