"""The run manager: the one path for CLI and MCP. It admits a run (inputs, trust, limits), hands
it with the `RunWiring` it built once (`_wiring`) to the queue and execution (`_execution`), keeps
heartbeats and reaps dead owners (`_liveness`), all through the `Store` interface, never a
backend. Its face for reads, templates and browsing is its bases' (`_manager_*`, `_held`).
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.browser import (
    BrowserRuntime,
    ProfileStore,
    Sessions,
    system_resolver,
)
from taskplate.contract import RunStatus, TrustLevel, valid_unicode
from taskplate.dsl import Template
from taskplate.stdlib import conversion_workers, warm_workers

from .._admission import admit
from .._artifacts import ArtifactStore
from .._confirm import Asker, ConfirmPolicy
from .._human import resume_run
from .._library import TemplateLibrary
from .._principal import OPERATOR, Principal, space_of
from .._tracing import TraceMode
from ..store import FLUSH_S, STORE_WRITE_S, Store, open_store
from ._capacity import Capacity, Share
from ._drain import (
    queue_for_others,
    refuse_secret_while_draining,
    release_run,
    start_draining,
    wait_drained,
)
from ._execution import run_job, save_progress
from ._held import HeldRuns
from ._inputs import (
    Limits,
    check_inputs,
    check_trust,
    decide_mode,
    effective_timeout_ms,
    new_run_id,
    run_options,
    secret_names,
)
from ._live import Live
from ._liveness import HEARTBEAT_S, REAP_S, SWEEP_S, WATCH_S, flush_every, sweep_every
from ._manager_artifacts import ManagerArtifacts
from ._manager_browsing import ManagerBrowsing
from ._manager_resumes import ManagerResumes
from ._manager_templates import ManagerTemplates
from ._queue import RunQueue
from ._resume import GIVEN_SESSION, TEMPLATE_HASH, template_hash
from ._settlement import Settlement
from ._views import RunReads
from ._wiring import RunJob, RunWiring, Wired

if TYPE_CHECKING:
    from taskplate.browser import Resolver
    from taskplate.stdlib import CallerModel, WebConfig


class RunManager(
    ManagerResumes, HeldRuns, RunReads, ManagerArtifacts, ManagerTemplates, ManagerBrowsing
):
    """The one path for CLI and MCP. Its callers use its methods only (its face: these and
    those of its bases, each a part of what it does), never the parts it holds."""

    # Settings every run reads from the wiring: local callers' confirmations nobody can give
    # (--confirm), the terminal `dsl run` asks on, the hosts a run may or may not reach.
    confirm: Wired[ConfirmPolicy] = Wired()
    terminal: Wired[Asker | None] = Wired()
    allow_hosts: Wired[tuple[str, ...]] = Wired()
    deny_hosts: Wired[tuple[str, ...]] = Wired()

    def __init__(
        self,
        home: Path,
        library: TemplateLibrary,
        runtime: BrowserRuntime | None = None,
        limits: Limits | None = None,
        allow_hosts: tuple[str, ...] = (),
        deny_hosts: tuple[str, ...] = (),
        profiles: Any = None,
        web: WebConfig | None = None,
        resolver: Resolver | None = None,
        store: str | None = None,
    ) -> None:
        self.home = home
        self.library = library
        self.limits = limits or Limits()
        self.own_runtime = runtime is None  # a runtime handed in belongs to the caller
        self.runtime = runtime or BrowserRuntime()
        self.sessions = Sessions(self.runtime)
        # `store`: a URL; None: TASKPLATE_STORE, else SQLite in the home
        self.store: Store = open_store(home, store)  # connected by `running()` or `async with`
        self.artifacts = ArtifactStore(home / "artifacts", self.store, self.limits.artifact_ttl_ms)
        self.profiles = profiles if profiles is not None else ProfileStore(home / "profiles")
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.trace_default: TraceMode | None = None  # None: on-failure local, off remote
        self.live: dict[str, Live] = {}
        # each principal's share of the limits; the server sets `shares` from its token file
        self.capacity = Capacity(self.limits)
        self.queue = RunQueue(self.store, self.limits, self.capacity)
        self.wiring = RunWiring(
            self.store,
            self.limits,
            self.queue,
            Settlement(self.store, self.artifacts, self.limits),
            self.artifacts,
            library,
            self.sessions,
            self.profiles,
            resolver or system_resolver,  # tests map names as Chromium's rules do
            allow_hosts,
            deny_hosts,
            web,
        )
        self._tg: anyio.abc.TaskGroup | None = None
        self._idle: anyio.Event | None = None  # set as the last run here ends (a drain waits)

    # -- life cycle ---------------------------------------------------------------------------
    async def close(self) -> None:
        """Closes the run store; `running()` does it on leaving. For callers that only read."""
        await self.store.close()

    async def __aenter__(self) -> RunManager:
        """For callers that only read: the store opened, no background work."""
        try:
            await self.store.open()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def running(self, *, warm: bool = False) -> AsyncIterator[RunManager]:
        """The manager's background work (heartbeat, cancel watch) and runs live in here.

        `warm`: the worker that turns pages into Markdown starts now, in the background, not at
        the first page (a server: its first run does not share two cores with a second of
        imports). An error raised by the caller inside comes out as itself, not in a group."""
        try:
            await self.store.open()
            # Providers (other MCP servers) start before the runs and close after them, and so
            # do the worker processes that turn pages into Markdown.
            async with (
                self.library.running(),
                conversion_workers(),
                anyio.create_task_group() as tg,
            ):
                self._tg = tg
                tg.start_soon(self._watch)
                tg.start_soon(self.queue.serve, self.owner)
                tg.start_soon(self.store.listen_cancels, self._cancel_here)
                tg.start_soon(flush_every, self.store, FLUSH_S)
                tg.start_soon(sweep_every, self.wiring.sweep_profiles, SWEEP_S)
                tg.start_soon(self.runtime.watch, self.home / "browsers" / f"{self.owner}.json")
                if warm:
                    tg.start_soon(warm_workers)
                try:
                    yield self
                finally:
                    with anyio.CancelScope(shield=True), anyio.move_on_after(STORE_WRITE_S):
                        for run_id, live in list(self.live.items()):
                            if live.execution is not None:
                                await self.store.request_cancel(run_id, force=True)
                    for live in list(self.live.values()):
                        if live.scope is not None:
                            live.scope.cancel()
                    tg.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        finally:
            with anyio.CancelScope(shield=True):
                await self.sessions.close_all()
                if self.own_runtime:
                    await self.runtime.close()
                await self.close()

    async def warm(self) -> None:
        """What a run would start on first use, started now and waited for: the browser and the
        conversion worker. Inside `running()`; for callers that time runs (bench/)."""
        await self.runtime.browser()
        await warm_workers()

    async def _watch(self) -> None:
        last_beat = last_reap = 0.0
        while True:
            now = time.monotonic()
            if now - last_beat >= HEARTBEAT_S:
                await self.store.heartbeat(self.owner)
                last_beat = now
            if now - last_reap >= REAP_S:
                await self.reap()
                last_reap = now
            for run_id, live in list(self.live.items()):
                if live.progress_unsaved:  # the last change of a burst was throttled away
                    save_progress(self.store, run_id, live)
                flag = await self.store.cancel_flag(run_id)
                if flag:
                    self._cancel_here(run_id, flag == "force")
            await anyio.sleep(WATCH_S)

    # -- submitting ---------------------------------------------------------------------------
    def decide_mode(
        self, template: Template, inputs: dict[str, Any], options: dict[str, Any]
    ) -> str:
        return decide_mode(template, inputs, options)

    def effective_timeout_ms(self, template: Template, options: dict[str, Any]) -> int:
        return effective_timeout_ms(self.limits, template, options)

    async def submit(
        self,
        template_id: str,
        inputs: Any,
        *,
        version: str | None = None,
        options: dict[str, Any] | None = None,
        trust: TrustLevel = TrustLevel.LOCAL,
        session_id: str | None = None,
        profile_id: str | None = None,
        template: Template | None = None,
        principal: Principal = OPERATOR,
        asker: Asker | None = None,
        sampler: CallerModel | None = None,
    ) -> str:
        """Validate and queue a run; answers its runId at once. `asker` reaches the caller's
        user (confirmations, hand-overs); `principal` is the caller it belongs to; `sampler`
        is the caller's language model (MCP sampling): llm_extract steps ask it, or the
        configured `[llm]` endpoint when it cannot sample (`RunWiring.model_for`)."""
        assert self._tg is not None, "use `async with manager.running()`"
        template = template or self.library.get(template_id, version)
        check_trust(template, trust)
        inputs = valid_unicode(inputs)  # text from a caller, made valid Unicode once
        admit(inputs, self.limits.max_input_bytes)
        if profile_id is not None:  # INVALID_PARAMETER for a malformed id, "" too
            profiles = self.wiring.profiles_of(trust, principal.name)
            # a remote caller's own, created now: one past its most is refused before the run
            profiles.folder(profile_id) if trust is TrustLevel.LOCAL else profiles.ensure(
                profile_id
            )
        filled = check_inputs(template, inputs)
        session = self.sessions.get(session_id) if session_id else None
        hidden = secret_names(template.inputs_schema)
        stored_inputs = {k: ("***" if k in hidden else v) for k, v in filled.items()}
        run_id = new_run_id()
        options = run_options(
            dict(options or {}), template, self.limits, trust, self.trace_default, profile_id
        )
        space = space_of(principal.name) if trust is TrustLevel.REMOTE else None
        options[TEMPLATE_HASH] = template_hash(self.library, template, space)  # known again
        if session is not None:
            options[GIVEN_SESSION] = True  # the caller's session ends with this process
        network = self.wiring.network_for(template, options, trust, filled, profile_id)
        row = (run_id, template.id, template.version, stored_inputs, options, self.owner)
        if self.queue.draining:  # this server stops: the run is queued for the others
            if hidden or network.secrets:
                raise refuse_secret_while_draining()
            insert = partial(self.store.insert_run, *row, principal.name)
            await queue_for_others(self.store, insert, run_id, self.owner)
            return run_id
        await self.queue.enter(
            len(self.live), principal.name, partial(self.store.insert_run, *row, principal.name)
        )
        self.live[run_id] = Live(asker=asker, sampler=sampler)
        secret_values = [str(filled[k]) for k in hidden if filled.get(k) not in (None, "")]
        secret_values += network.secrets  # the proxy's password, masked like a secret input
        job = RunJob(
            run_id,
            template,
            filled,
            options,
            trust,
            session,
            profile_id,
            secret_values,
            principal.name,
            network,
        )
        self._tg.start_soon(self._run, job)
        return run_id

    # -- one run ------------------------------------------------------------------------------
    def _start(self, job: RunJob) -> bool:
        if self._tg is None:
            self.live.pop(job.run_id, None)
            return False
        self._tg.start_soon(self._run, job)
        return True

    def _start_possible(self) -> bool:
        return self._tg is not None

    async def _run(self, job: RunJob) -> None:
        live = self.live[job.run_id]
        try:
            await run_job(self.wiring, job, live)
            if live.released:
                await release_run(self.store, job.run_id, self.owner, live)
        finally:
            self.live.pop(job.run_id, None)
            self.queue.freed()
            if not self.live and self._idle is not None:
                self._idle.set()

    async def drain(self, grace_s: float) -> int:
        """The server stops (SIGTERM): no run starts here any more (one submitted is queued
        for the other servers), items in flight finish within `grace_s`, then every
        unfinished run is handed over to the other servers on the store. Answers how many runs
        the grace was too short for (their items in flight run again elsewhere)."""
        self.queue.drain()
        start_draining(self.live)
        idle = self._idle = anyio.Event()
        if not self.live:
            return 0
        return await wait_drained(self.live, idle.wait, grace_s)

    # -- reading and cancelling ---------------------------------------------------------------
    def run_limits(self) -> Limits:
        """The limits every run and answer of this manager keeps (a plain value)."""
        return self.limits

    def share_runs(self, shares: Mapping[str, Share]) -> None:
        """Each principal's share of the runs (a server's token lines); the others' defaults."""
        self.capacity.shares = shares

    async def reap(self) -> None:
        """As `ManagerResumes.reap`; a server that stops takes nothing over."""
        if not self.queue.draining:
            await super().reap()

    async def cancel(
        self, run_id: str, force: bool = False, principal: Principal = OPERATOR
    ) -> dict[str, Any]:
        row = await self.row(run_id, principal)
        if RunStatus(row.status).terminal:
            return {"cancelRequested": False, "currentStatus": row.status}
        await self.store.request_cancel(run_id, force)
        self._cancel_here(run_id, force)
        return {"cancelRequested": True, "currentStatus": (await self.row(run_id)).status}

    async def resume(self, run_id: str, principal: Principal = OPERATOR) -> dict[str, Any]:
        """A run waiting for a person goes on (resume_task_run); `principal` must see it."""
        row = await self.row(run_id, principal)
        return {"runId": run_id, **await resume_run(self.store, run_id, row.status)}
