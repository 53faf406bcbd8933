"""Conversions run off the event loop: in a warm worker process inside a runtime, in a thread
before it is ready or outside one; the workers end with the runtime, none is left behind."""

from __future__ import annotations

import os

import anyio
import pytest

from taskplate.stdlib.content import _conversion
from taskplate.stdlib.content._conversion import (
    conversion_workers,
    convert,
    warm_workers,
    worker_pids,
)
from taskplate.stdlib.reading.get_page_content import render_typed
from tests.fixtures.processes import process_alive

pytestmark = pytest.mark.anyio

PAGE = (
    "<html><head><title>T</title></head><body><nav><a href='/'>Home</a></nav><article>"
    + "<h1>Windows of tabs</h1>"
    + "<p>A sliding window keeps five pages in flight while the first ones are read.</p>" * 8
    + "</article></body></html>"
)


async def _until_warm() -> None:
    with anyio.fail_after(120):  # a spawned interpreter imports lxml and trafilatura
        while _conversion._workers is None or not _conversion._workers.ready:
            await anyio.sleep(0.05)


async def test_outside_a_runtime_a_conversion_runs_in_a_thread() -> None:
    assert await convert(os.getpid) == os.getpid()
    assert worker_pids() == []


async def test_a_warm_worker_converts_and_ends_with_the_runtime() -> None:
    async with conversion_workers():
        # The first conversion does not wait for the worker: it runs here, in a thread.
        assert await convert(os.getpid) == os.getpid()
        await _until_warm()
        worker = await convert(os.getpid)
        assert worker != os.getpid()
        assert worker_pids() == [worker]
        read = await convert(render_typed, PAGE, "http://x.test/a", "markdown", True)
        markdown, is_main, _kind = read
        assert is_main and "# Windows of tabs" in markdown and "Home" not in markdown
        assert read == render_typed(PAGE, "http://x.test/a", "markdown", True)
    assert not process_alive(worker)
    assert _conversion._workers is None
    assert await convert(os.getpid) == os.getpid()  # after it: threads again


async def test_a_runtime_that_ends_while_its_worker_warms_leaves_no_process() -> None:
    async with conversion_workers():
        await convert(os.getpid)  # starts the worker
        pool = _conversion._workers.pool if _conversion._workers else None
        assert pool is not None
        with anyio.fail_after(60):
            while not worker_pids():
                await anyio.sleep(0.01)
        pids = worker_pids()
    assert pids and not any(process_alive(pid) for pid in pids)


async def test_an_error_in_the_worker_comes_back_as_itself() -> None:
    async with conversion_workers():
        await convert(os.getpid)
        await _until_warm()
        with pytest.raises(ValueError):
            await convert(int, "not a number")


async def test_an_error_inside_the_runtime_comes_out_as_itself_not_in_a_group() -> None:
    with pytest.raises(KeyError):
        async with conversion_workers():
            await convert(os.getpid)  # the worker is starting
            raise KeyError("the caller's own error")
    assert worker_pids() == []


async def test_warming_starts_the_worker_before_any_conversion_and_waits_for_it() -> None:
    assert await warm_workers() is False  # outside a runtime: nothing to warm, threads it is
    assert worker_pids() == []
    async with conversion_workers():
        with anyio.fail_after(120):  # a spawned interpreter imports lxml and trafilatura
            assert await warm_workers() is True
        [worker] = worker_pids()
        assert await convert(os.getpid) == worker  # the very first conversion: in the worker
        assert await warm_workers() is True  # again: the same worker, at once
        assert worker_pids() == [worker]
    assert not process_alive(worker)


async def test_warming_a_pool_that_cannot_start_answers_false_and_threads_convert(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_: object, **__: object) -> object:  # local: it cannot reach the worker
        raise RuntimeError("never runs")

    monkeypatch.setattr(_conversion, "_warm", broken)  # the warm-up fails, as a broken pool's
    async with conversion_workers():
        with anyio.fail_after(120):
            assert await warm_workers() is False
        assert await convert(os.getpid) == os.getpid()
    assert worker_pids() == []


async def test_warming_where_no_process_can_start_logs_it_and_threads_convert(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def no_process(*_: object, **__: object) -> object:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(_conversion, "ProcessPoolExecutor", no_process)
    async with conversion_workers():
        assert await warm_workers() is False  # the server that warms goes on serving
        assert "conversions run in threads" in caplog.text
        assert await convert(os.getpid) == os.getpid()
    assert worker_pids() == []
