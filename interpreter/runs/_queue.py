"""The queue of runs: FIFO and `maxConcurrentRuns` across every process on the store (a local
slot first, then a slot of the whole store), and the queue's capacity. Admission only.
"""

from __future__ import annotations

import time

import anyio

from taskplate.contract import ErrorCode, TaskplateError

from ..store import Store
from ._inputs import Limits
from ._liveness import DEAD_AFTER_S

ADMIT_POLL_S = 0.1  # a queued run waiting for a slot held by another server


class RunQueue:
    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self.slots = anyio.CapacityLimiter(limits.max_concurrent_runs)  # this process, FIFO

    def check_room(self, live: int) -> None:
        """RUN_QUEUE_FULL when this process already holds too many waiting runs."""
        queued = max(0, live - self.limits.max_concurrent_runs)
        if queued >= self.limits.queue_capacity:
            raise TaskplateError(
                ErrorCode.RUN_QUEUE_FULL,
                f"{queued} runs are waiting already",
                "Retry later, or cancel runs you no longer need.",
            )

    async def admitted(self, run_id: str) -> bool:
        """Wait for a slot of the whole store (every server on it); False when canceled first.
        The caller holds one of `slots`."""
        while True:
            if await self.store.cancel_flag(run_id):
                return False
            alive_since = time.time() - DEAD_AFTER_S
            if await self.store.start_if_free(run_id, self.limits.max_concurrent_runs, alive_since):
                return True
            await anyio.sleep(ADMIT_POLL_S)
