"""Whether a run's owner process still lives: heartbeats in the store, and on this machine its
process id. Answers only; the run manager's watch writes heartbeats and reaps what this finds.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import anyio

from taskplate.browser import pid_alive
from taskplate.contract import ErrorCode, RunStatus, TaskplateError
from taskplate.dsl import Template

from .._principal import space_of
from ..store import RunRow, Store
from ._inputs import secret_names

if TYPE_CHECKING:
    from .._library import TemplateLibrary

HEARTBEAT_S = 1.0
DEAD_AFTER_S = 10.0
WATCH_S = 0.2
PROGRESS_WRITE_S = 0.25  # progress is written at most this often (the watch writes the rest)
REAP_S = 2.0  # how often dead owners' runs are looked for without a reader asking
SWEEP_S = 3600.0  # how often remote principals' unused profiles are looked for (and at the start)


def owner_is_dead(row: RunRow) -> bool:
    """Its owner's process is gone (this machine), or its heartbeats stopped (another machine).
    On this machine a live process is alive however late its heartbeats: a loaded machine
    delays them past DEAD_AFTER_S, and its runs would then run on two servers at once."""
    if not row.owner:
        return True  # released by a server that stopped (or never owned)
    if row.owner.partition(":")[0] == socket.gethostname():
        return not _owner_alive(row.owner)
    return row.heartbeat_at is None or time.time() - row.heartbeat_at > DEAD_AFTER_S


async def reap(
    store: Store,
    me: str,
    adopt: Callable[[RunRow], Awaitable[bool]],
    resume: Callable[[RunRow], Awaitable[TaskplateError | None]],
) -> None:
    """Runs of dead owners: a queued one `adopt` takes over (True) or it fails with
    RUN_INTERRUPTED; a running one `resume` takes over or leaves (None), or it fails with the
    error `resume` answers; one waiting for a person fails with RUN_INTERRUPTED. A running or
    waiting run is failed only once claimed (`Store.adopt`), so a server that resumed it first
    is never overruled."""
    for row in await store.active_of_others(me):
        if not owner_is_dead(row):
            continue
        if row.status == str(RunStatus.QUEUED):
            if not await adopt(row):
                await fail(store, row.run_id, interrupted(row.run_id))
            continue
        error = interrupted(row.run_id)
        if row.status == str(RunStatus.RUNNING):
            refusal = await resume(row)
            if refusal is None:
                continue
            error = refusal
        if await store.adopt(row.run_id, row.owner, me):
            await fail(store, row.run_id, error)


async def fail(store: Store, run_id: str, error: TaskplateError) -> None:
    await store.update_run(
        run_id, status=str(RunStatus.FAILED), error=error.to_json(), ended_at=time.time()
    )


def adoptable(library: TemplateLibrary, row: RunRow) -> Template | None:
    """The template of a dead owner's queued run, when this process can run it: it knows the
    template, and the run needed no secret input (never stored)."""
    remote = row.options.get("trust") == "remote"  # its principal's own templates too
    try:
        template = library.get(
            row.template_id, row.template_version, space_of(row.principal) if remote else None
        )
    except TaskplateError:
        return None
    if any(row.inputs.get(k) == "***" for k in secret_names(template.inputs_schema)):
        return None
    return template


def interrupted(run_id: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.RUN_INTERRUPTED,
        "the process running this run stopped before it finished",
        "Run it again.",
        {"runId": run_id},
    )


def _owner_alive(owner: str) -> bool:
    host, _, rest = owner.partition(":")
    if host != socket.gethostname():
        return True  # another machine: only its heartbeat can tell
    return pid_alive(int(rest.split(":")[0]))


async def sweep_every(sweep: Callable[[], None], seconds: float) -> None:
    """Remote principals' unused profiles removed (`RunWiring.sweep_profiles`, in a worker
    thread: it reads and removes folders), at the start and every `seconds`."""
    while True:
        with contextlib.suppress(OSError):  # a folder another process removes: next time
            await anyio.to_thread.run_sync(sweep)
        await anyio.sleep(seconds)


async def flush_every(store: Store, seconds: float) -> None:
    """Write what the store kept back for callers that cannot await (step rows, progress)."""
    while True:
        await store.flush()
        await anyio.sleep(seconds)
