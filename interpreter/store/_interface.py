"""The run store's interface (`Store`, its `RunRow`), what every backend answers, and `open_store`,
which picks the backend: SQLite under the data home (the default), or PostgreSQL for `postgresql://…`.

Rows only; no run logic. The run manager and its parts talk to a `Store`, never to a backend.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

FLUSH_S = 0.05  # how long kept-back writes (`keep_step`, `keep_progress`) may wait
STORE_WRITE_S = 15.0  # a write shielded from cancellation (a run ending) waits at most this
STORE_ENV = "TASKPLATE_STORE"


@dataclass
class RunRow:
    run_id: str
    template_id: str
    template_version: str
    status: str
    inputs: dict[str, Any]
    options: dict[str, Any]
    progress: dict[str, Any]
    result: Any
    error: dict[str, Any] | None
    created_at: float
    updated_at: float
    started_at: float | None
    ended_at: float | None
    owner: str | None
    heartbeat_at: float | None
    cancel: str | None  # None, "cooperative" or "force"
    principal: str | None = None  # the caller that started it (`Principal.name`)
    waiting: dict[str, Any] | None = None  # a hand-over waiting for a person
    resume: float | None = None  # when resume_task_run asked a waiting run to go on


class ArtifactBytes(Protocol):
    """Where artifact bytes live: files under the data home (SQLite), or the database itself."""

    async def write(self, run_id: str, artifact_id: str, data: bytes) -> None: ...

    async def read(
        self, run_id: str, artifact_id: str, offset: int, limit: int | None
    ) -> bytes: ...

    async def drop(self, run_id: str, artifact_id: str) -> None: ...


class Store(Protocol):
    """Every backend keeps the same rows with the same meaning: a terminal run never changes,
    `claim` and `start_next` are atomic across every process on the store.

    Every call is a coroutine: none blocks the event loop on the database. `open` connects
    (idempotent; `async with store` opens and closes). The two `keep_*` writes are for callers
    that cannot await (the executor's step and progress callbacks): they never wait on the
    database; what they keep back is written by `flush`, which the run manager calls every
    FLUSH_S and every other call of the store makes first (this process reads its own writes)."""

    description: str  # for messages: a path, or a URL without its password

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def __aenter__(self) -> Store: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def flush(self) -> None:
        """Write what `keep_step` and `keep_progress` kept back."""
        ...

    def keep_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None:
        """`write_step` for a caller that cannot await; written by the next `flush` at latest."""
        ...

    def keep_progress(self, run_id: str, progress: dict[str, Any]) -> None:
        """A run's progress for a caller that cannot await; written by the next `flush` at
        latest (a run already terminal keeps its own)."""
        ...

    # runs
    async def insert_run(
        self,
        run_id: str,
        template_id: str,
        version: str,
        inputs: dict[str, Any],
        options: dict[str, Any],
        owner: str,
        principal: str | None = None,
    ) -> None:
        """A queued run; `owner` is the process that runs it, `principal` the caller that
        started it (who may see it)."""
        ...

    async def run(self, run_id: str) -> RunRow | None: ...

    async def update_run(self, run_id: str, **fields: Any) -> None: ...

    async def list_runs(
        self,
        status: str | None,
        template_id: str | None,
        limit: int,
        offset: int,
        principal: str | None = None,
    ) -> tuple[list[RunRow], int]:
        """A page of runs, newest first, and how many match; `principal`: only its runs."""
        ...

    async def runs_before(
        self, principal: str | None, created_at: float, run_id: str, limit: int
    ) -> list[RunRow]:
        """Up to `limit` runs older than (created_at, run_id), newest first (a keyset page);
        `principal`: only its runs (None: every run)."""
        ...

    async def request_cancel(self, run_id: str, force: bool) -> None: ...

    async def cancel_flag(self, run_id: str) -> str | None: ...

    async def listen_cancels(self, heard: Callable[[str, bool], None]) -> None:
        """`heard(run_id, force)` for every cancel requested on the store by any process, as it
        is requested, until canceled. Returns at once when the backend cannot tell (SQLite: the
        run manager's watch reads the flags)."""
        ...

    async def request_resume(self, run_id: str) -> bool:
        """Ask a run waiting for a person to go on; False when it is not waiting."""
        ...

    async def resume_flag(self, run_id: str) -> float | None: ...

    async def heartbeat(self, owner: str) -> None: ...

    async def active_of_others(self, me: str) -> list[RunRow]: ...

    async def claim(self, run_id: str, previous_owner: str | None, me: str) -> bool: ...

    async def release(self, run_id: str, me: str) -> bool:
        """Let go of an unfinished run of `me` (a server that stops): no owner, no heartbeat,
        so another server takes it over at its next reap. False when it was not `me`'s."""
        ...

    async def add_event(self, run_id: str, kind: str, server: str | None, **detail: Any) -> None:
        """Note what happened to a run besides its steps: handed over, resumed elsewhere."""
        ...

    async def events(self, run_id: str) -> list[dict[str, Any]]:
        """The run's events, oldest first (`kind`, `at`, `server` and their detail)."""
        ...

    async def adopt(self, run_id: str, previous_owner: str | None, me: str) -> bool:
        """Take over a `running` (or `waiting_for_human`) run whose owner is dead: one
        conditional UPDATE (still owned by `previous_owner`), so of servers adopting at once
        exactly one wins (True). Its cancel flag stays: a cancel asked before is still asked."""
        ...

    async def queued_of(self, principal: str | None) -> int:
        """How many runs of `principal` are queued on the whole store."""
        ...

    async def start_next(
        self,
        owner: str,
        limit: int,
        alive_since: float,
        share: Callable[[str | None], int | None],
    ) -> str | None:
        """Start the next queued run when it is `owner`'s, answering its id: fewer than `limit`
        runs of the whole store hold a slot (running, or waiting for a person); among the
        oldest queued run of each principal (not canceled, its owner's heartbeat newer than
        `alive_since` or `owner`) whose principal holds fewer than `share(principal)` slots
        (None: no share of its own), the principal holding fewest first, then the oldest. The
        queue and maxConcurrentRuns across every server, fair among principals."""
        ...

    # steps and kept calls
    async def write_step(
        self, run_id: str, seq: int, call: dict[str, Any] | None = None, **fields: Any
    ) -> None: ...

    async def steps(self, run_id: str) -> list[dict[str, Any]]: ...

    # checkpoints: what a run finished, so another process can resume it
    def keep_checkpoint(
        self, run_id: str, key: str, seq: int, value: str | None, artifact_id: str | None = None
    ) -> None:
        """A checkpoint (`value`: JSON text, or None with `artifact_id` for a large one) for a
        caller that cannot await; replaces one of the same key; written by the next `flush` at
        latest (SQLite: at once)."""
        ...

    async def checkpoints(self, run_id: str) -> list[dict[str, Any]]:
        """A run's checkpoints (`key`, `seq`, `value`, `artifact_id`) in the order written."""
        ...

    async def keep_call(self, source: str, seq: int | None, **fields: Any) -> None: ...

    async def calls(self, source: str) -> list[dict[str, Any]]: ...

    # artifacts
    async def insert_artifact(
        self,
        artifact_id: str,
        run_id: str,
        name: str,
        mime_type: str,
        size: int,
        sha256: str,
        principal: str | None = None,
    ) -> None:
        """An artifact's row; `principal`: the caller whose run or session made it."""
        ...

    async def artifact(self, artifact_id: str) -> dict[str, Any] | None: ...

    async def artifacts_of(self, run_id: str) -> list[dict[str, Any]]: ...

    async def live_artifacts(self) -> list[dict[str, Any]]: ...

    async def mark_expired(self, artifact_id: str) -> None: ...

    def artifact_bytes(self, root: Path) -> ArtifactBytes:
        """Where this store keeps artifact bytes (`root` is the data home's artifacts folder)."""
        ...
