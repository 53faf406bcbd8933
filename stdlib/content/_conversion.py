"""Where HTML becomes Markdown, text or links: in a warm worker process while a runtime runs, so the
event loop never waits on the GIL for it; in a thread before the worker is ready or outside a runtime.

Runs pure functions of their arguments only; owns its worker processes and ends them with the runtime.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import anyio

T = TypeVar("T")

# One worker: on two cores the other belongs to Chromium. A page's conversion (5 to 120 ms of
# Python) then never holds the GIL the event loop needs (bench/content.py measures the loop's lag).
WORKERS = 1
PARENT_CHECK_S = 1.0  # how often a worker looks whether its parent is still alive
FINISH_S = 5.0  # a conversion still running when the workers end may finish within this


class _Workers:
    """The runtime's worker pool: started at the first conversion (or by `warm_workers`), warm
    before it is used."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.pool: ProcessPoolExecutor | None = None  # started (maybe still warming)
        self.ready = False  # warm: conversions go to it
        self.failed = False  # could not start: conversions stay in threads

    def start(self) -> None:
        """Starts the workers and their warm-up; no task waits for it (a callback marks them
        ready), so the runtime's own errors pass through its block unwrapped."""
        if self.pool is not None or self.failed:
            return
        try:
            self.pool = ProcessPoolExecutor(
                self.size,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
                initargs=(os.getpid(),),
            )
            warming = [self.pool.submit(_warm) for _ in range(self.size)]
        except Exception as exc:  # no process could be started (out of processes, memory)
            logging.getLogger("taskplate.stdlib").warning(
                "the Markdown conversion worker did not start (%s): conversions run in threads", exc
            )
            self.failed = True
            return
        left = [len(warming)]

        def warmed(future: Future[int]) -> None:  # in the pool's own thread
            if future.cancelled() or future.exception() is not None:
                self.failed = True  # no worker (a broken pool): conversions stay in threads
                return
            left[0] -= 1
            if left[0] == 0 and self.pool is not None:
                self.ready = True

        for future in warming:
            future.add_done_callback(warmed)

    def close(self) -> None:
        """Ends the workers: pending conversions are canceled, a running one may finish within
        FINISH_S; a worker still warming up (importing, a second or more), or one whose
        conversion runs on past that, is ended, not waited for."""
        warming, self.ready = not self.ready, False
        pool, self.pool = self.pool, None
        if pool is None:
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        if warming:
            for process in processes:
                process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.join(FINISH_S)
            if process.is_alive():
                process.kill()
                process.join(FINISH_S)


_workers: _Workers | None = None


def _init_worker(parent: int) -> None:
    # A stdio server's stdout is its protocol channel: nothing a worker prints may reach it.
    os.dup2(2, 1)
    # A worker waits on its task queue, whose write end it holds too: a parent that dies without
    # ending it (SIGKILL, a crash) would leave it running for ever, and its resource tracker too.
    threading.Thread(target=_end_with, args=(parent,), name="parent-watch", daemon=True).start()


def _end_with(parent: int) -> None:
    while os.getppid() == parent:  # an orphan is adopted by init (or a subreaper)
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


def _warm() -> int:
    # By name: the worker imports lxml, trafilatura and the voters once, before its first page.
    importlib.import_module("taskplate.stdlib.content._markdown")
    importlib.import_module("taskplate.stdlib.content._selection")
    importlib.import_module("taskplate.stdlib.content._voters")._stopwords()
    return os.getpid()


async def _result(future: Future[T]) -> T:
    try:
        return await anyio.to_thread.run_sync(future.result, abandon_on_cancel=True)
    finally:
        future.cancel()  # canceled while queued: the worker never starts it


async def convert(fn: Callable[..., T], *args: Any) -> T:
    """fn(*args) off the event loop: in the runtime's worker process when it is warm, else in a
    thread (and the worker is started for the next ones). fn and args must pickle."""
    workers = _workers
    if workers is not None and workers.ready and workers.pool is not None:
        try:
            return await _result(workers.pool.submit(fn, *args))
        except (BrokenProcessPool, RuntimeError):  # a worker died, or the pool is shutting down
            workers.ready, workers.failed = False, True
    elif workers is not None:
        workers.start()
    return await anyio.to_thread.run_sync(fn, *args)


async def warm_workers() -> bool:
    """Starts the worker processes of the enclosing `conversion_workers` block now, not at the
    first conversion, and waits until they are warm (a server as it starts, so that its first
    run does not pay a second of imports; a benchmark before its clock). False when there is no
    such block or the workers could not start (conversions then run in threads)."""
    workers = _workers
    if workers is None:
        return False
    workers.start()
    while not (workers.ready or workers.failed or workers.pool is None):
        await anyio.sleep(0.05)  # set by the pool's thread: a second or two of imports
    return workers.ready


def worker_pids() -> list[int]:
    """The live worker processes (for tests and benchmarks)."""
    pool = _workers.pool if _workers is not None else None
    processes = getattr(pool, "_processes", None) or {}
    return [p.pid for p in processes.values() if p.pid is not None and p.is_alive()]


@contextlib.asynccontextmanager
async def conversion_workers(size: int = WORKERS) -> AsyncIterator[None]:
    """Conversions inside go to worker processes started at the first of them; they end when the
    outermost such block of the process ends (runtimes nested in one process share them)."""
    global _workers
    if _workers is not None:
        yield
        return
    _workers = workers = _Workers(size)
    try:
        yield
    finally:
        _workers = None
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(workers.close)
