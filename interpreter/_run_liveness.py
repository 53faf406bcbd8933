"""Whether a run's owner process still lives: heartbeats in the store, and on this machine its
process id. Answers only; the run manager's watch writes heartbeats and reaps what this finds.
"""

from __future__ import annotations

import os
import socket
import time

import anyio

from taskplate.dsl import ErrorCode, TaskplateError

from ._stores import RunRow, Store

HEARTBEAT_S = 1.0
DEAD_AFTER_S = 10.0
WATCH_S = 0.2
REAP_S = 2.0  # how often dead owners' runs are looked for without a reader asking


def owner_is_dead(row: RunRow) -> bool:
    """Its owner's process is gone (this machine), or its heartbeats stopped (any machine)."""
    stale = row.heartbeat_at is None or time.time() - row.heartbeat_at > DEAD_AFTER_S
    return not (row.owner and _owner_alive(row.owner) and not stale)


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
    pid = int(rest.split(":")[0])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def flush_every(store: Store, seconds: float) -> None:
    """Write what the store kept back for callers that cannot await (step records, progress)."""
    while True:
        await store.flush()
        await anyio.sleep(seconds)
