"""A server's graceful stop (SIGTERM, `dsl serve --drain-s`): no run starts here any more, the
items in flight finish within a grace period, then each unfinished run is released in the store
so that another server resumes it at once. How a run resumes is the adoption's, not this.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from taskplate.contract import ErrorCode, TaskplateError

from ..store import STORE_WRITE_S, Store
from ._live import Live

log = logging.getLogger("taskplate.runs")

DRAIN_S = 30.0  # the grace `dsl serve` gives its items in flight by default (--drain-s)
RELEASED = "released"  # the run event a stopping server notes as it lets a run go
RESUMED = "resumed"  # the run event the server that adopts it notes
ITEM_KEY = "item:"  # an outermost loop item's checkpoint: item:<loop path>:<index>


def start_draining(live: dict[str, Live]) -> None:
    """Every run executing here stops taking items and top-level steps; its items in flight go
    on. (Runs still queued here leave their wait by the queue's `drain`.)"""
    for held in live.values():
        if held.execution is not None:
            held.execution.cancel.draining = True


async def wait_drained(
    live: dict[str, Live], idle: Callable[[], Awaitable[None]], grace_s: float
) -> int:
    """Wait until no run executes here, at most `grace_s`; then stop what is left by force
    (each is handed over as it stops, its items in flight to run again elsewhere). Answers
    how many runs the grace was too short for."""
    with anyio.move_on_after(grace_s):
        await idle()
    late = [held for held in live.values() if held.scope is not None]
    for held in late:
        held.scope.cancel()  # type: ignore[union-attr]
    with anyio.move_on_after(STORE_WRITE_S):
        await idle()
    return len(late)


async def release_run(store: Store, run_id: str, owner: str, live: Live) -> None:
    """A run that stopped here unfinished: what it finished written, its row released (no
    owner, no heartbeat: another server's reap takes it at once), its event noted."""
    forced = live.scope is not None and live.scope.cancel_called  # the grace ran out
    with anyio.CancelScope(shield=True), anyio.move_on_after(STORE_WRITE_S):
        shown = live.progress
        floor = live.progress_floor  # a resumed run stopped before it counted as far again
        if shown is not None and shown.items_done >= floor[0] and shown.done_steps >= floor[1]:
            store.keep_progress(run_id, shown.to_json())  # its newest, a throttled write's too
        await store.flush()
        if not await store.release(run_id, owner):
            return  # ended meanwhile, or taken by another
        done = live.progress.items_done if live.progress is not None else 0
        await store.add_event(
            run_id, RELEASED, owner, reason="stopped", graceRanOut=forced, itemsDone=done
        )
        log.info("run %s handed over to the other servers (%s stops)", run_id, owner)


def refuse_secret_while_draining() -> TaskplateError:
    """A run submitted to a server that stops needs a secret input, which only this process
    holds (never stored): no other server could run it."""
    return TaskplateError(
        ErrorCode.RUN_QUEUE_FULL,
        "this server is stopping and takes no run with secret inputs",
        "Submit it again: another server on the store takes it.",
        {"limit": "draining"},
    )


async def queue_for_others(
    store: Store, insert: Callable[[], Awaitable[Any]], run_id: str, owner: str
) -> None:
    """A run submitted to a server that stops: queued on the store and released at once, for
    another server's reap to take over and start."""
    await insert()
    await store.release(run_id, owner)


async def note_resumed(store: Store, run_id: str, previous_owner: str | None, me: str) -> None:
    """The run event of a run this process adopts: after which server and why (it stopped and
    handed the run over, or it died), and the items it runs again that the other had started:
    each outermost loop's items not kept below its last kept one (items start in order)."""
    events = await store.events(run_id)
    last = events[-1] if events else None
    stopped = last is not None and last["kind"] == RELEASED and previous_owner is None
    after = last["server"] if stopped and last is not None else previous_owner
    kept: dict[str, set[int]] = {}
    for row in await store.checkpoints(run_id):
        loop, _, index = str(row["key"]).removeprefix(ITEM_KEY).rpartition(":")
        if str(row["key"]).startswith(ITEM_KEY) and index.isdigit():
            kept.setdefault(loop, set()).add(int(index))
    repeated = sorted(i for done in kept.values() for i in range(max(done)) if i not in done)
    await store.add_event(
        run_id,
        RESUMED,
        me,
        after=after,
        reason="stopped" if stopped else "died",
        repeated=repeated,
    )
