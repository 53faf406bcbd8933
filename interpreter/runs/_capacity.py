"""A principal's share of the runs: how many of its runs may hold a slot (running, or waiting for
a person) and wait queued, within maxConcurrentRuns and the queue's capacity. Numbers and the
refusal they give; the queue and the store's admission apply them, nothing here waits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from taskplate.contract import ErrorCode, TaskplateError

from .._principal import LOCAL
from ._inputs import Limits

DEFAULT_QUEUED = 20  # a principal's queued runs unless its token line says (max-queued=N)


@dataclass(frozen=True)
class Share:
    """What an operator gave one principal (a token line's `max-running=N`, `max-queued=N`);
    None: the default."""

    running: int | None = None
    queued: int | None = None


@dataclass
class Capacity:
    """Every principal's share of one manager's limits. The local user (stdio, `dsl run`, a
    loopback caller under --trust local) has the whole of them unless a share names it; any
    other principal gets at most maxConcurrentRuns − 1 slots (so one caller never fills the
    store and another's run starts at the next free slot) and DEFAULT_QUEUED queued runs. A
    share never reaches past the global limits."""

    limits: Limits
    shares: Mapping[str, Share] = field(default_factory=dict)

    def running(self, principal: str | None) -> int | None:
        """How many of the principal's runs may hold a slot at once; None: any (the global)."""
        given = self._share(principal).running
        if given is None and principal == LOCAL:
            return None
        total = self.limits.max_concurrent_runs
        return min(given if given is not None else max(1, total - 1), total)

    def queued(self, principal: str | None) -> int | None:
        """How many of the principal's runs may wait queued; None: any (the queue's capacity)."""
        given = self._share(principal).queued
        if given is None and principal == LOCAL:
            return None
        return min(given if given is not None else DEFAULT_QUEUED, self.limits.queue_capacity)

    def _share(self, principal: str | None) -> Share:
        return self.shares.get(principal or "", Share())

    def refuse_queued(self, principal: str | None, queued: int) -> None:
        """RUN_QUEUE_FULL when the principal has its `queued` runs waiting already, naming the
        limit and how the operator raises it."""
        limit = self.queued(principal)
        if limit is None or queued < limit:
            return
        raise TaskplateError(
            ErrorCode.RUN_QUEUE_FULL,
            f"you have {queued} runs queued already; your limit is {limit} queued runs "
            f"(maxQueuedRuns of principal {principal or 'unnamed'})",
            "Wait for your queued runs to start, or cancel those you no longer need "
            "(list_task_runs with status queued). The operator can change the limit with "
            "max-queued=N on your token's line of the token file.",
            {
                "limit": "maxQueuedRuns",
                "maxQueuedRuns": limit,
                "queued": queued,
                "principal": principal,
                "setting": "max-queued=N (token file)",
            },
        )
