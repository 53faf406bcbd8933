"""The run manager: the one path for CLI and MCP. It admits a run (inputs, trust, limits), hands
it to the queue (`_run_queue`), executes it (`_run_execution`, `_run_settlement`), keeps
heartbeats and reaps dead owners (`_run_liveness`), and answers reads (`_run_views`), all
through the `Store` interface (`_stores`), never a backend.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.browser import (
    BrowserRuntime,
    ProfileStore,
    Session,
    Sessions,
    UrlPolicy,
    system_resolver,
)
from taskplate.dsl import (
    ErrorCode,
    RunStatus,
    TaskplateError,
    Template,
    TrustLevel,
    render,
    truthy,
)
from taskplate.stdlib._conversion import conversion_workers

from ._admission import admit
from ._artifacts import ArtifactStore, RunArtifacts
from ._confirm import Asker, Confirmer, ConfirmPolicy
from ._executor import Execution, Progress, StepRecord
from ._human import RunDesk, caller_key, resume_run
from ._library import TemplateLibrary
from ._run_execution import Live, execute
from ._run_inputs import Limits, check_inputs, new_run_id, secret_names
from ._run_liveness import (
    HEARTBEAT_S,
    REAP_S,
    WATCH_S,
    flush_every,
    interrupted,
    owner_is_dead,
)
from ._run_queue import RunQueue
from ._run_settlement import Settlement, call_of, never_hanging
from ._run_views import describe, listing
from ._stores import FLUSH_S, STORE_WRITE_S, RunRow, Store, open_store
from ._tracing import RunTrace, TraceMode, failure_screenshot, trace_mode

if TYPE_CHECKING:
    from taskplate.browser._policy import Resolver
    from taskplate.stdlib import Sampler
    from taskplate.stdlib._web import WebConfig


class RunManager:
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
        self.allow_hosts, self.deny_hosts = allow_hosts, deny_hosts
        self.trace_default: TraceMode | None = None  # None: on-failure local, off remote
        self.confirm = ConfirmPolicy.ASK  # local callers' confirmations nobody can give (--confirm)
        self.terminal: Asker | None = None  # `dsl run` on a terminal asks there
        self.web = web  # plain HTTP (fetch): User-Agent, per-host limit, robots.txt
        self.resolver = resolver or system_resolver  # tests map names as Chromium's rules do
        self.live: dict[str, Live] = {}
        self.queue = RunQueue(self.store, self.limits)
        self.settlement = Settlement(self.store, self.artifacts, self.limits)
        self._tg: anyio.abc.TaskGroup | None = None

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
    async def running(self) -> AsyncIterator[RunManager]:
        """The manager's background work (heartbeat, cancel watch) and runs live in here.

        An error raised by the caller inside comes out as itself, not wrapped in a group."""
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
                tg.start_soon(flush_every, self.store, FLUSH_S)
                tg.start_soon(self.runtime.watch, self.home / "browsers" / f"{self.owner}.json")
                try:
                    yield self
                finally:
                    for run_id, live in list(self.live.items()):
                        if live.execution is not None:
                            await self.store.request_cancel(run_id, force=True)
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
                flag = await self.store.cancel_flag(run_id)
                if flag and live.execution is not None:
                    live.execution.cancel_requested = True
                if flag == "force" and live.scope is not None:
                    live.scope.cancel()
            await anyio.sleep(WATCH_S)

    # -- submitting ---------------------------------------------------------------------------
    def decide_mode(
        self, template: Template, inputs: dict[str, Any], options: dict[str, Any]
    ) -> str:
        mode = options.get("mode") or template.mode_default
        if mode != "auto":
            return str(mode)
        if template.async_when is not None:
            try:
                return (
                    "async" if truthy(render(template.async_when, {"inputs": inputs})) else "sync"
                )
            except Exception:
                return "sync"
        return "sync"

    def effective_timeout_ms(self, template: Template, options: dict[str, Any]) -> int:
        candidates = [self.limits.max_run_timeout_ms]
        if template.limits.max_timeout_ms:
            candidates.append(template.limits.max_timeout_ms)
        if options.get("timeoutMs"):
            candidates.append(int(options["timeoutMs"]))
        return min(candidates)

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
        caller: str | None = None,
        asker: Asker | None = None,
        sampler: Sampler | None = None,
    ) -> str:
        """Validate and queue a run; answers its runId at once. `asker` reaches the caller's
        user (confirmations, hand-overs); `caller` is who may resume it when remote; `sampler`
        is the caller's language model, asked by llm_extract steps."""
        assert self._tg is not None, "use `async with manager.running()`"
        template = template or self.library.get(template_id, version)
        if trust not in template.trust:
            raise TaskplateError(
                ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
                f'template "{template.id}" allows {", ".join(template.trust)} callers; this connection is {trust}',
                "Run it over stdio (local trust), or use a template that allows remote callers.",
            )
        admit(inputs, self.limits.max_input_bytes)
        if profile_id is not None:
            self.profiles.folder(profile_id)  # INVALID_PARAMETER for a malformed id, "" too
        options = dict(options or {})
        options["trace"] = str(trace_mode(options.get("trace"), trust, self.trace_default))
        filled = check_inputs(template, inputs)
        session = self.sessions.get(session_id) if session_id else None
        self.queue.check_room(len(self.live))
        hidden = secret_names(template.inputs_schema)
        stored_inputs = {k: ("***" if k in hidden else v) for k, v in filled.items()}
        run_id = new_run_id()
        options["effectiveTimeoutMs"] = self.effective_timeout_ms(template, options)
        options["trust"] = str(trust)
        if profile_id:
            options["profileId"] = profile_id
        if caller:
            options["caller"] = caller_key(caller)
        await self.store.insert_run(
            run_id, template.id, template.version, stored_inputs, options, self.owner
        )
        self.live[run_id] = Live(asker=asker, sampler=sampler)
        secret_values = [str(filled[k]) for k in hidden if filled.get(k) not in (None, "")]
        self._tg.start_soon(
            self._run, run_id, template, filled, options, trust, session, profile_id, secret_values
        )
        return run_id

    async def wait(
        self,
        run_id: str,
        on_progress: Callable[[Progress], None] | None = None,
        on_step: Callable[[StepRecord], None] | None = None,
    ) -> dict[str, Any]:
        """The run's answer once it is terminal; listeners hear its progress and every step
        execution while it runs in this process."""
        live = self.live.get(run_id)
        if live is not None:
            if on_progress is not None:
                live.progress_listeners.append(on_progress)
            if on_step is not None:
                live.step_listeners.append(on_step)
            await live.done.wait()
        else:
            while True:
                row = await self.store.run(run_id)
                if row is None or RunStatus(row.status).terminal:
                    break
                await self.reap()
                await anyio.sleep(0.2)
        return await self.describe(run_id)

    # -- one run ------------------------------------------------------------------------------
    def url_policy(self, trust: TrustLevel) -> UrlPolicy:
        return UrlPolicy(trust, self.allow_hosts, self.deny_hosts, self.resolver)

    async def open_session(self, trust: TrustLevel, profile_id: str) -> Session:
        """A new session under the caller's URL policy, seeded from the profile's snapshot."""
        policy = self.url_policy(trust)
        snapshot = self.profiles.read(profile_id)
        session = await self.sessions.create(policy=policy, seed=snapshot.state)
        session.profile_id, session.profile_version = snapshot.profile_id, snapshot.version
        return session

    async def _session_for(
        self, trust: TrustLevel, template: Template, inputs: dict[str, Any], profile_id: str | None
    ) -> Session:
        named = (
            render(template.profile, {"inputs": inputs}) if template.profile is not None else None
        )
        return await self.open_session(trust, str(profile_id or named or "master"))

    async def _run(
        self,
        run_id: str,
        template: Template,
        inputs: dict[str, Any],
        options: dict[str, Any],
        trust: TrustLevel,
        given: Session | None,
        profile_id: str | None,
        secret_values: list[str],
    ) -> None:
        live = self.live[run_id]
        own: list[Session] = []
        trace = live.trace = RunTrace(
            TraceMode(options.get("trace", "off")),
            RunArtifacts(self.artifacts, run_id),
            secret_values,
        )

        async def session() -> Session:
            if given is not None:
                await trace.attach(given)
                return given
            if not own:
                own.append(await self._session_for(trust, template, inputs, profile_id))
                await self.store.update_run(run_id, options={**options, "sessionId": own[0].id})
                await trace.attach(own[0])
            return own[0]

        last_write = [0.0]

        def progress(p: Progress) -> None:
            now = time.monotonic()
            for listener in live.progress_listeners:
                listener(p)
            if now - last_write[0] > 0.25:
                last_write[0] = now
                self.store.keep_progress(run_id, p.to_json())

        def record(r: StepRecord) -> None:
            trace.record(r)
            for listener in live.step_listeners:
                listener(r)
            self.store.keep_step(
                run_id,
                r.seq,
                step_id=r.step_id,
                item_index=r.item_index,
                action=r.action,
                status=str(r.status),
                attempts=r.attempts,
                started_at=r.started_at,
                ended_at=r.ended_at,
                args_preview=r.args_preview,
                result_preview=r.result_preview,
                error=r.error,
                call=call_of(r),
                tab_id=r.tab_id,
                screenshot_artifact_id=r.screenshot_artifact_id,
                provider=r.provider,
                capability_level=r.capability_level,
                confirmation=r.confirmation,
            )

        execution = Execution(
            template,
            trust,
            session,
            RunArtifacts(self.artifacts, run_id),
            record,
            progress,
            secrets=secret_values,
            profiles=self.profiles,
            on_failure=failure_screenshot,
            policy=given.policy if given is not None else self.url_policy(trust),
            web_config=self.web,
            catalog=self.library.actions or self.library.catalog,
            confirmer=Confirmer(trust, live.asker, self.confirm, self.terminal),
            sampler=live.sampler,
        )
        execution.human = RunDesk(
            self.store,
            run_id,
            trust,
            live.asker or (self.terminal if trust is TrustLevel.LOCAL else None),
            lambda: execution.cancel_requested,
            lambda: live.scope.cancel() if live.scope is not None else None,
            execution.secrets,
        )
        try:
            async with self.queue.slots:
                if not await self.queue.admitted(run_id):
                    await self.settlement.finish(
                        run_id, RunStatus.CANCELED, None, None, execution.progress
                    )
                    return
                live.execution = execution
                await execute(
                    run_id,
                    template,
                    inputs,
                    options,
                    execution,
                    live,
                    session,
                    given,
                    self.settlement,
                )
        except Exception as exc:
            error = TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"internal error: {type(exc).__name__}: {exc}",
                "Report this as a bug.",
            )
            await self.settlement.finish(
                run_id,
                RunStatus.FAILED,
                None,
                error.to_json(),
                execution.progress,
                execution.secrets,
            )
        finally:
            with anyio.CancelScope(shield=True):
                await execution.aclose()
                if own:
                    await self.profiles.settle(own[0])
                if own and not template.keep_session:
                    await self.sessions.close(own[0].id)
                with anyio.move_on_after(STORE_WRITE_S):
                    await never_hanging(self.store, run_id)
            live.done.set()
            self.live.pop(run_id, None)

    # -- reading and cancelling ---------------------------------------------------------------
    async def reap(self) -> None:
        """Runs whose owner process died: running ones fail with RUN_INTERRUPTED; queued ones
        are taken over and run here (unless they needed a secret input, which is never stored)."""
        for row in await self.store.active_of_others(self.owner):
            if not owner_is_dead(row):
                continue
            if row.status == str(RunStatus.QUEUED) and await self._adopt(row):
                continue
            await self.store.update_run(
                row.run_id,
                status=str(RunStatus.FAILED),
                error=interrupted(row.run_id).to_json(),
                ended_at=time.time(),
            )

    async def _adopt(self, row: RunRow) -> bool:
        try:
            template = self.library.get(row.template_id, row.template_version)
        except TaskplateError:
            return False
        if self._tg is None or any(
            row.inputs.get(k) == "***" for k in secret_names(template.inputs_schema)
        ):
            return False
        if not await self.store.claim(row.run_id, row.owner, self.owner):
            return True  # another process took it
        self.live[row.run_id] = Live()
        trust = TrustLevel(row.options.get("trust", "local"))
        self._tg.start_soon(
            self._run,
            row.run_id,
            template,
            row.inputs,
            row.options,
            trust,
            None,
            row.options.get("profileId"),
            [],
        )
        return True

    async def row(self, run_id: str) -> RunRow:
        await self.reap()
        row = await self.store.run(run_id)
        if row is None:
            raise TaskplateError(
                ErrorCode.RUN_NOT_FOUND, f"no run {run_id}", "List runs with list_task_runs."
            )
        return row

    async def describe(self, run_id: str, include_steps: bool = False) -> dict[str, Any]:
        return await describe(self.store, await self.row(run_id), include_steps)

    async def list(
        self,
        status: str | None = None,
        template_id: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> dict[str, Any]:
        await self.reap()
        rows, total = await self.store.list_runs(
            status, template_id, max(1, min(limit, 100)), max(0, offset)
        )
        return listing(rows, total)

    async def cancel(self, run_id: str, force: bool = False) -> dict[str, Any]:
        row = await self.row(run_id)
        if RunStatus(row.status).terminal:
            return {"cancelRequested": False, "currentStatus": row.status}
        await self.store.request_cancel(run_id, force)
        live = self.live.get(run_id)
        if live is not None and live.execution is not None:
            live.execution.cancel_requested = True
            if force and live.scope is not None:
                live.scope.cancel()
        return {"cancelRequested": True, "currentStatus": (await self.row(run_id)).status}

    async def resume(
        self, run_id: str, trust: TrustLevel = TrustLevel.LOCAL, caller: str | None = None
    ) -> dict[str, Any]:
        """A run waiting for a person goes on (resume_task_run)."""
        row = await self.row(run_id)
        return {
            "runId": run_id,
            **await resume_run(self.store, run_id, row.status, row.options, trust, caller),
        }
