"""The queue of runs: maxConcurrentRuns across every process on the store, each principal's share
of it (`Capacity`), the next run chosen fairly among principals, and the queue's capacity.
Admission only: one loop per process (`serve`) asks the store to start its next run.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio

from taskplate.contract import ErrorCode, TaskplateError

from .._executor import Drained
from ..store import Store
from ._capacity import Capacity
from ._inputs import Limits
from ._liveness import DEAD_AFTER_S

ADMIT_POLL_S = 0.1  # a queued run waiting for a slot held by another server
CANCEL_READ_S = 1.0  # a queued run reads its cancel flag itself this often (the watch does too)


class RunQueue:
    """This process's queued runs wait here until the store's admission starts them
    (`Store.start_next`: room on the whole store, within the principal's share, the principal
    with the fewest runs holding slots first, then the oldest run)."""

    def __init__(self, store: Store, limits: Limits, capacity: Capacity | None = None) -> None:
        self.store = store
        self.limits = limits
        self.capacity = capacity or Capacity(limits)
        self.submitting = anyio.Lock()  # `enter`, one submit at a time
        self._waiting: dict[str, anyio.Event] = {}
        self._started: set[str] = set()  # started by the loop, its waiter told (or not yet here)
        self._nudge = anyio.Event()  # a run waits, or a slot of this process freed
        self.draining = False  # the server stops: its queued runs are left to the others

    def drain(self) -> None:
        """The server stops: no run of this process starts any more; those still queued here
        leave their wait (`Drained`) to be handed over."""
        self.draining = True
        for event in self._waiting.values():
            event.set()
        self._nudge.set()

    async def enter(
        self, live: int, principal: str | None, insert: Callable[[], Awaitable[None]]
    ) -> None:
        """The room checked (`check_room`) and the run's row inserted, one submit at a time in
        this process, so two submits never both take a principal's last queued place here."""
        async with self.submitting:
            await self.check_room(live, principal)
            await insert()

    async def check_room(self, live: int, principal: str | None) -> None:
        """RUN_QUEUE_FULL when this process already holds too many waiting runs, or the
        principal has its share of queued runs on the store."""
        queued = max(0, live - self.limits.max_concurrent_runs)
        if queued >= self.limits.queue_capacity:
            raise TaskplateError(
                ErrorCode.RUN_QUEUE_FULL,
                f"{queued} runs are waiting already, the queue's capacity",
                "Retry later, or cancel runs you no longer need.",
                {"limit": "queueCapacity", "queueCapacity": self.limits.queue_capacity},
            )
        if self.capacity.queued(principal) is not None:
            self.capacity.refuse_queued(principal, await self.store.queued_of(principal))

    async def admitted(self, run_id: str) -> bool:
        """Wait until the store's admission starts the run; False when it was canceled first,
        `Drained` when its server stops first."""
        event = self._waiting.setdefault(run_id, anyio.Event())
        if run_id in self._started:
            event.set()
        self._nudge.set()
        try:
            while not event.is_set():
                with anyio.move_on_after(CANCEL_READ_S):
                    await event.wait()
                if not event.is_set() and await self.store.cancel_flag(run_id):
                    return False
            if self.draining and run_id not in self._started:
                raise Drained()
            return run_id in self._started
        finally:
            self._waiting.pop(run_id, None)
            self._started.discard(run_id)

    def drop(self, run_id: str) -> None:
        """A queued run was canceled: its waiter stops (the store no longer starts it)."""
        event = self._waiting.get(run_id)
        if event is not None and run_id not in self._started:
            event.set()

    def freed(self) -> None:
        """A run of this process ended: the loop looks for the next one now."""
        self._nudge.set()

    async def serve(self, owner: str) -> None:
        """The process's admission loop (in the run manager's task group): while runs of
        `owner` wait, ask the store for the next, every ADMIT_POLL_S or when a slot frees here."""
        while not self.draining:
            if not self._waiting.keys() - self._started:
                self._nudge = anyio.Event()
                await self._nudge.wait()
                continue
            started = await self.store.start_next(
                owner,
                self.limits.max_concurrent_runs,
                time.time() - DEAD_AFTER_S,
                self.capacity.running,
            )
            if started is not None:
                self._started.add(started)
                event = self._waiting.get(started)
                if event is not None:
                    event.set()
                continue  # maybe more room
            self._nudge = anyio.Event()
            with anyio.move_on_after(ADMIT_POLL_S):
                await self._nudge.wait()
