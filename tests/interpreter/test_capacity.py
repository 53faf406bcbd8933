"""Each principal's share of the runs: the defaults, a token line's share within the global
limits, the refusal of a principal at its own queue limit, and the store's choice of the next
run (fuzzed: never past a share or the store's limit, never a free slot left to a queue)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import (
    DEFAULT_QUEUED,
    LOCAL,
    OPERATOR,
    Capacity,
    Limits,
    Principal,
    RunManager,
    Share,
)
from taskplate.interpreter.store._sql import next_to_start
from tests.fuzzing import fuzz_settings


def test_a_principal_gets_all_but_one_slot_and_twenty_queued_runs_by_default() -> None:
    capacity = Capacity(Limits(max_concurrent_runs=5, queue_capacity=100))
    assert (capacity.running("beta"), capacity.queued("beta")) == (4, DEFAULT_QUEUED)
    assert (capacity.running(None), capacity.queued(None)) == (4, DEFAULT_QUEUED)
    assert (capacity.running(LOCAL), capacity.queued(LOCAL)) == (None, None)  # the whole
    assert Capacity(Limits(max_concurrent_runs=1)).running("beta") == 1


def test_a_share_never_reaches_past_the_global_limits() -> None:
    shares = {"wide": Share(running=50, queued=500), "narrow": Share(1, 2), LOCAL: Share(2, 3)}
    capacity = Capacity(Limits(max_concurrent_runs=5, queue_capacity=100), shares)
    assert (capacity.running("wide"), capacity.queued("wide")) == (5, 100)
    assert (capacity.running("narrow"), capacity.queued("narrow")) == (1, 2)
    assert (capacity.running(LOCAL), capacity.queued(LOCAL)) == (2, 3)


@pytest.mark.anyio
async def test_a_principal_at_its_queue_limit_is_refused_and_another_is_not(
    manager: RunManager,
) -> None:
    """maxConcurrentRuns 2, queue capacity 3: beta holds one slot and queues three; its next is
    refused naming the limit and how to change it; alpha's run starts in the free slot."""
    beta, alpha = Principal("beta"), Principal("alpha")
    long = {"ms": 60_000}
    held = await manager.submit("pause", long, principal=beta)
    queued = [await manager.submit("pause", long, principal=beta) for _ in range(3)]
    with pytest.raises(TaskplateError) as caught:
        await manager.submit("pause", long, principal=beta)
    refused = caught.value
    assert refused.code is ErrorCode.RUN_QUEUE_FULL
    assert "your limit is 3 queued runs" in refused.message and "max-queued=N" in (
        refused.recover_hint or ""
    )
    assert refused.details == {
        "limit": "maxQueuedRuns",
        "maxQueuedRuns": 3,
        "queued": 3,
        "principal": "beta",
        "setting": "max-queued=N (token file)",
    }
    theirs = await manager.submit("pause", {"ms": 1}, principal=alpha)
    with anyio.fail_after(20):
        assert (await manager.wait(theirs))["status"] == "succeeded"
    assert {(await manager.describe(r))["status"] for r in queued} == {"queued"}
    for run_id in [held, *queued]:
        await manager.cancel(run_id, force=True, principal=OPERATOR)
    with anyio.fail_after(20):
        for run_id in [held, *queued]:
            assert (await manager.wait(run_id))["status"] == "canceled"


def admit_all(
    holding: dict[str | None, int],
    queues: dict[str | None, list[int]],
    limit: int,
    shares: dict[str | None, int],
) -> list[str | None]:
    """Start runs while the store's choice gives one; the principals in the order started."""
    order: list[str | None] = []
    while True:
        heads: list[dict[str, Any]] = [
            {"run_id": f"r{q[0]:04d}", "principal": p, "owner": "me", "created_at": q[0]}
            for p, q in queues.items()
            if q
        ]
        chosen = next_to_start(holding, heads, limit, shares.get)
        if chosen is None:
            return order
        principal = chosen["principal"]
        queues[principal].pop(0)
        holding[principal] = holding.get(principal, 0) + 1
        order.append(principal)


PRINCIPALS = st.sampled_from([None, "alpha", "beta", "gamma"])


@pytest.mark.fuzz
@fuzz_settings(200)
@given(
    limit=st.integers(1, 6),
    holding=st.dictionaries(PRINCIPALS, st.integers(0, 4), max_size=4),
    arrivals=st.lists(PRINCIPALS, max_size=30),
    shares=st.dictionaries(PRINCIPALS, st.integers(1, 6), max_size=4),
)
def test_the_next_run_never_passes_a_share_and_never_leaves_a_free_slot_to_a_queue(
    limit: int,
    holding: dict[str | None, int],
    arrivals: list[str | None],
    shares: dict[str | None, int],
) -> None:
    queues: dict[str | None, list[int]] = {}
    for created, principal in enumerate(arrivals):
        queues.setdefault(principal, []).append(created)
    before = dict(holding)
    order = admit_all(holding, queues, limit, shares)
    for principal in set(order):  # a share is never passed by what the choice started
        most = shares.get(principal)
        assert most is None or holding[principal] <= max(most, before.get(principal, 0))
    assert sum(holding.values()) <= max(limit, sum(before.values()))
    if sum(holding.values()) < limit:  # room left: every waiting principal is at its share
        for principal, queue in queues.items():
            most = shares.get(principal)
            assert not queue or (most is not None and holding.get(principal, 0) >= most)
    # fair: a principal started while another, holding fewer, waited under its share
    for index, principal in enumerate(order):
        mine = before.get(principal, 0) + order[:index].count(principal)
        for other, queue in queues.items():
            theirs = before.get(other, 0) + order[:index].count(other)
            most = shares.get(other)
            waited = queue or other in order[index + 1 :]
            if other != principal and waited and (most is None or theirs < most):
                assert mine <= theirs, (principal, other, order)
