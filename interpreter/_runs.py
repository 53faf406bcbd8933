"""The run manager: validates inputs, queues runs (FIFO, `maxConcurrentRuns`), runs them with
the effective timeout, cancels them (cooperatively or by force, also across processes), keeps
heartbeats, and reports runs of dead owners as RUN_INTERRUPTED. The one path for CLI and MCP.
"""

from __future__ import annotations

import json
import os
import secrets as random
import socket
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import jsonschema

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
    listed,
    render,
    truthy,
    violations,
)
from taskplate.stdlib._conversion import conversion_workers

from ._admission import admit
from ._artifacts import ArtifactStore, RunArtifacts
from ._executor import Canceled, Execution, Progress, StepFailed, StepRecord
from ._library import TemplateLibrary
from ._store import RunRow, RunStore
from ._tracing import RunTrace, TraceMode, failure_screenshot, trace_mode

if TYPE_CHECKING:
    from taskplate.browser._policy import Resolver
    from taskplate.stdlib._web import WebConfig

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
HEARTBEAT_S = 1.0
DEAD_AFTER_S = 10.0
WATCH_S = 0.2


def new_run_id() -> str:
    """`run_` + 26 Crockford base-32 characters: 48 bits of milliseconds, then 80 random bits."""
    value = (int(time.time() * 1000) << 80) | random.randbits(80)
    chars = [_CROCKFORD[(value >> (5 * i)) & 31] for i in range(25, -1, -1)]
    return "run_" + "".join(chars)


def iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return (
        datetime.fromtimestamp(timestamp, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


@dataclass(frozen=True)
class Limits:
    max_concurrent_runs: int = 5
    max_run_timeout_ms: int = 900_000
    max_artifact_inline_bytes: int = 262_144
    max_tabs_per_session: int = 20
    artifact_ttl_ms: int = 86_400_000
    queue_capacity: int = 100
    max_input_bytes: int = 1_048_576

    def to_json(self) -> dict[str, int]:
        return {
            "maxConcurrentRuns": self.max_concurrent_runs,
            "maxRunTimeoutMs": self.max_run_timeout_ms,
            "maxArtifactInlineBytes": self.max_artifact_inline_bytes,
            "maxTabsPerSession": self.max_tabs_per_session,
            "artifactTtlMs": self.artifact_ttl_ms,
            "maxInputBytes": self.max_input_bytes,
        }


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def secret_names(schema: dict[str, Any]) -> set[str]:
    """Inputs that are secrets (writeOnly or format password): never stored, logged or shown."""
    props = _properties(schema)
    return {
        k
        for k, v in props.items()
        if isinstance(v, dict) and (v.get("writeOnly") is True or v.get("format") == "password")
    }


def with_defaults(schema: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    props = _properties(schema)
    out = dict(inputs)
    for name, prop in props.items():
        if name not in out and isinstance(prop, dict) and "default" in prop:
            out[name] = json.loads(json.dumps(prop["default"]))
    return out


def check_inputs(template: Template, inputs: Any) -> dict[str, Any]:
    if not isinstance(inputs, dict):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER, "inputs must be an object", "Pass inputs as a JSON object."
        )
    filled = with_defaults(template.inputs_schema, inputs)
    validator = jsonschema.Draft202012Validator(
        template.inputs_schema, format_checker=jsonschema.FormatChecker()
    )
    problems = violations(validator, filled)
    if problems:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"inputs do not match the template's inputs schema: {listed(problems)}",
            "Fix the inputs (list_task_templates shows the inputs schema).",
            {"violations": problems},
        )
    return filled


@dataclass
class _Live:
    """What this process holds of a run it owns."""

    done: anyio.Event = field(default_factory=anyio.Event)
    execution: Execution | None = None
    scope: anyio.CancelScope | None = None
    progress_listeners: list[Callable[[Progress], None]] = field(default_factory=list)
    step_listeners: list[Callable[[StepRecord], None]] = field(default_factory=list)
    trace: RunTrace | None = None


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
    ) -> None:
        self.home = home
        self.library = library
        self.limits = limits or Limits()
        self.own_runtime = runtime is None  # a runtime handed in belongs to the caller
        self.runtime = runtime or BrowserRuntime()
        self.sessions = Sessions(self.runtime)
        self.store = RunStore(home / "runs.db")
        try:
            self.artifacts = ArtifactStore(
                home / "artifacts", self.store, self.limits.artifact_ttl_ms
            )
            self.profiles = profiles if profiles is not None else ProfileStore(home / "profiles")
        except BaseException:
            self.store.close()
            raise
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.allow_hosts, self.deny_hosts = allow_hosts, deny_hosts
        self.trace_default: TraceMode | None = None  # None: on-failure local, off remote
        self.web = web  # plain HTTP (fetch): User-Agent, per-host limit, robots.txt
        self.resolver = resolver or system_resolver  # tests map names as Chromium's rules do
        self.live: dict[str, _Live] = {}
        self.slots = anyio.CapacityLimiter(self.limits.max_concurrent_runs)
        self._tg: anyio.abc.TaskGroup | None = None

    # -- life cycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Closes the run store; `running()` does it on leaving. For callers that only read."""
        self.store.close()

    def __enter__(self) -> RunManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[RunManager]:
        """The manager's background work (heartbeat, cancel watch) and runs live in here.

        An error raised by the caller inside comes out as itself, not wrapped in a group."""
        try:
            # Providers (other MCP servers) start before the runs and close after them, and so
            # do the worker processes that turn pages into Markdown.
            async with (
                self.library.running(),
                conversion_workers(),
                anyio.create_task_group() as tg,
            ):
                self._tg = tg
                tg.start_soon(self._watch)
                try:
                    yield self
                finally:
                    for run_id, live in list(self.live.items()):
                        if live.execution is not None:
                            self.store.request_cancel(run_id, force=True)
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
            self.close()

    async def _watch(self) -> None:
        last_beat = 0.0
        while True:
            now = time.monotonic()
            if now - last_beat >= HEARTBEAT_S:
                self.store.heartbeat(self.owner)
                last_beat = now
            for run_id, live in list(self.live.items()):
                flag = self.store.cancel_flag(run_id)
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
    ) -> str:
        """Validate and queue a run; answers its runId at once."""
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
        queued = max(0, len(self.live) - self.limits.max_concurrent_runs)
        if queued >= self.limits.queue_capacity:
            raise TaskplateError(
                ErrorCode.RUN_QUEUE_FULL,
                f"{queued} runs are waiting already",
                "Retry later, or cancel runs you no longer need.",
            )
        hidden = secret_names(template.inputs_schema)
        stored_inputs = {k: ("***" if k in hidden else v) for k, v in filled.items()}
        run_id = new_run_id()
        options["effectiveTimeoutMs"] = self.effective_timeout_ms(template, options)
        options["trust"] = str(trust)
        if profile_id:
            options["profileId"] = profile_id
        self.store.insert_run(
            run_id, template.id, template.version, stored_inputs, options, self.owner
        )
        self.live[run_id] = _Live()
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
                row = self.store.run(run_id)
                if row is None or RunStatus(row.status).terminal:
                    break
                self.reap()
                await anyio.sleep(0.2)
        return self.describe(run_id)

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
                self.store.update_run(run_id, options={**options, "sessionId": own[0].id})
                await trace.attach(own[0])
            return own[0]

        last_write = [0.0]

        def progress(p: Progress) -> None:
            now = time.monotonic()
            for listener in live.progress_listeners:
                listener(p)
            if now - last_write[0] > 0.25:
                last_write[0] = now
                self.store.update_run(run_id, progress=p.to_json())

        def record(r: StepRecord) -> None:
            trace.record(r)
            for listener in live.step_listeners:
                listener(r)
            self.store.record_step(
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
                call=_call_of(r),
                tab_id=r.tab_id,
                screenshot_artifact_id=r.screenshot_artifact_id,
                provider=r.provider,
                capability_level=r.capability_level,
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
        )
        try:
            async with self.slots:
                if self.store.cancel_flag(run_id):
                    self._finish(run_id, RunStatus.CANCELED, None, None, execution.progress)
                    return
                live.execution = execution
                self.store.update_run(run_id, status=str(RunStatus.RUNNING), started_at=time.time())
                await self._execute(
                    run_id, template, inputs, options, execution, live, session, given
                )
        except Exception as exc:
            error = TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"internal error: {type(exc).__name__}: {exc}",
                "Report this as a bug.",
            )
            self._finish(
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
            row = self.store.run(run_id)
            if row is not None and not RunStatus(row.status).terminal:  # never leave a run hanging
                error = TaskplateError(
                    ErrorCode.EXECUTION_ERROR, "the run stopped without a result", "Run it again."
                )
                self.store.update_run(
                    run_id,
                    status=str(RunStatus.FAILED),
                    error=error.to_json(),
                    ended_at=time.time(),
                )
            live.done.set()
            self.live.pop(run_id, None)

    async def _execute(
        self,
        run_id: str,
        template: Template,
        inputs: dict[str, Any],
        options: dict[str, Any],
        execution: Execution,
        live: _Live,
        session: Callable[[], Any],
        given: Session | None,
    ) -> None:
        run_info = {
            "runId": run_id,
            "templateId": template.id,
            "templateVersion": template.version,
            "sessionId": given.id if given else None,
            "profileId": None,
            "startedAt": iso(time.time()),
        }
        scope: dict[str, Any] = {"inputs": inputs, "steps": {}, "run": run_info}
        if template.keep_session and given is None:
            run_info["sessionId"] = (await session()).id
        execution.count_top_level()
        timeout_ms = options["effectiveTimeoutMs"]
        failure: StepFailed | None = None
        canceled = timed_out = False
        with anyio.CancelScope() as forced:
            live.scope = forced
            with anyio.move_on_after(timeout_ms / 1000) as deadline:
                try:
                    await execution.run_block(template.steps, scope, None, None)
                except StepFailed as exc:
                    failure = exc
                except Canceled:
                    canceled = True
            timed_out = deadline.cancelled_caught
        if forced.cancelled_caught:
            canceled = True
        if live.trace is not None:  # kept as an artifact before the run reads as finished
            await live.trace.finish(failed=timed_out or failure is not None)
        result = self._output(template, scope)
        if canceled:
            self._finish(
                run_id, RunStatus.CANCELED, result, None, execution.progress, execution.secrets
            )
        elif timed_out:
            error = TaskplateError(
                ErrorCode.RUN_TIMEOUT,
                f"the run took longer than {timeout_ms} ms",
                "Raise options.timeoutMs (up to the template's maxTimeoutMs) or give fewer items.",
                {"runId": run_id},
            )
            self._finish(
                run_id,
                RunStatus.FAILED,
                result,
                error.to_json(),
                execution.progress,
                execution.secrets,
            )
        elif failure is not None:
            step = failure.step
            error = TaskplateError(
                ErrorCode.STEP_EXECUTION_FAILED,
                f"step {step.label} failed: {failure.error.message}",
                failure.error.recover_hint
                or "See the step's error in get_task_run with includeSteps.",
                {
                    "runId": run_id,
                    "failedStep": step.id or step.pointer,
                    "stepErrorCode": str(failure.error.code),
                },
            )
            self._finish(
                run_id,
                RunStatus.FAILED,
                result,
                error.to_json(),
                execution.progress,
                execution.secrets,
            )
        else:
            self._settle(run_id, template, result, execution)

    def _output(self, template: Template, scope: dict[str, Any]) -> Any:
        if template.output is None:
            return scope["steps"]
        try:
            return render(template.output, scope)
        except Exception:
            return {k: v for k, v in scope["steps"].items() if v is not None}

    def _settle(self, run_id: str, template: Template, result: Any, execution: Execution) -> None:
        items = execution.loop_items
        failed = items.count(False)
        status, error = RunStatus.SUCCEEDED, None
        if failed:
            ratio = items.count(True) / len(items)
            threshold = (
                template.partial_success.threshold
                if template.partial_success.threshold is not None
                else 0.5
            )
            status = RunStatus.PARTIAL_SUCCESS if ratio >= threshold else RunStatus.FAILED
            if status is RunStatus.FAILED:
                error = TaskplateError(
                    ErrorCode.STEP_EXECUTION_FAILED,
                    f"only {items.count(True)} of {len(items)} items succeeded, below the threshold {threshold}",
                    "Look at the failed items' errors in the result.",
                    {"runId": run_id, "succeeded": items.count(True), "total": len(items)},
                ).to_json()
        if error is None and template.outputs_schema is not None:
            problems = list(
                jsonschema.Draft202012Validator(template.outputs_schema).iter_errors(result)
            )
            if problems:
                status = RunStatus.FAILED
                error = TaskplateError(
                    ErrorCode.OUTPUT_SCHEMA_MISMATCH,
                    f"the result does not match the outputs schema: {problems[0].message}",
                    "The template's output and outputs disagree; fix the template.",
                    {
                        "runId": run_id,
                        "violations": [
                            {
                                "pointer": "/" + "/".join(map(str, p.absolute_path)),
                                "message": p.message,
                            }
                            for p in problems[:20]
                        ],
                    },
                ).to_json()
        self._finish(run_id, status, result, error, execution.progress, execution.secrets)

    def _finish(
        self,
        run_id: str,
        status: RunStatus,
        result: Any,
        error: dict[str, Any] | None,
        progress: Progress,
        secrets: list[str] | None = None,
    ) -> None:
        result, error = _mask(result, secrets or []), _mask(error, secrets or [])
        encoded = json.dumps(result, ensure_ascii=False, default=str).encode()
        if len(encoded) > self.limits.max_artifact_inline_bytes:
            artifact_id = self.artifacts.save(run_id, "result.json", encoded, "application/json")
            summary = result.get("summary") if isinstance(result, dict) else None
            result = {"resultArtifactId": artifact_id, "truncated": True, "summary": summary}
        self.store.update_run(
            run_id,
            status=str(status),
            result=result,
            error=error,
            progress=progress.to_json(),
            ended_at=time.time(),
        )

    # -- reading and cancelling ---------------------------------------------------------------
    def reap(self) -> None:
        """Runs whose owner process died: running ones fail with RUN_INTERRUPTED; queued ones
        are taken over and run here (unless they needed a secret input, which is never stored)."""
        for row in self.store.active_of_others(self.owner):
            stale = row.heartbeat_at is None or time.time() - row.heartbeat_at > DEAD_AFTER_S
            if row.owner and _owner_alive(row.owner) and not stale:
                continue
            if row.status == str(RunStatus.QUEUED) and self._adopt(row):
                continue
            error = TaskplateError(
                ErrorCode.RUN_INTERRUPTED,
                "the process running this run stopped before it finished",
                "Run it again.",
                {"runId": row.run_id},
            )
            self.store.update_run(
                row.run_id,
                status=str(RunStatus.FAILED),
                error=error.to_json(),
                ended_at=time.time(),
            )

    def _adopt(self, row: RunRow) -> bool:
        try:
            template = self.library.get(row.template_id, row.template_version)
        except TaskplateError:
            return False
        if self._tg is None or any(
            row.inputs.get(k) == "***" for k in secret_names(template.inputs_schema)
        ):
            return False
        if not self.store.claim(row.run_id, row.owner, self.owner):
            return True  # another process took it
        self.live[row.run_id] = _Live()
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

    def row(self, run_id: str) -> RunRow:
        self.reap()
        row = self.store.run(run_id)
        if row is None:
            raise TaskplateError(
                ErrorCode.RUN_NOT_FOUND, f"no run {run_id}", "List runs with list_task_runs."
            )
        return row

    def describe(self, run_id: str, include_steps: bool = False) -> dict[str, Any]:
        row = self.row(run_id)
        end = row.ended_at or time.time()
        out: dict[str, Any] = {
            "runId": row.run_id,
            "templateId": row.template_id,
            "templateVersion": row.template_version,
            "status": row.status,
            "progress": row.progress or {"totalSteps": 0, "doneSteps": 0},
            "metrics": {"elapsedMs": int((end - (row.started_at or row.created_at)) * 1000)},
            "createdAt": iso(row.created_at),
            "updatedAt": iso(row.updated_at),
        }
        if row.options.get("sessionId"):
            out["sessionId"] = row.options["sessionId"]
        if row.result is not None:
            out["result"] = row.result
        if row.error is not None:
            out["error"] = row.error
        out["artifacts"] = [
            {
                "artifactId": a["artifact_id"],
                "type": a["mime_type"].split("/")[0],
                "mimeType": a["mime_type"],
                "size": a["size"],
                "name": a["name"],
            }
            for a in self.store.artifacts_of(run_id)
        ]
        if include_steps:
            out["steps"] = [
                {
                    "stepId": s["step_id"],
                    "itemIndex": s["item_index"],
                    "action": s["action"],
                    "status": s["status"],
                    "attempts": s["attempts"],
                    "startedAt": iso(s["started_at"]),
                    "endedAt": iso(s["ended_at"]),
                    "argsPreview": s["args_preview"],
                    "resultPreview": s["result_preview"],
                    "error": s["error"],
                    **({"tabId": s["tab_id"]} if s.get("tab_id") else {}),
                    **(
                        {"screenshotArtifactId": s["screenshot_artifact_id"]}
                        if s.get("screenshot_artifact_id")
                        else {}
                    ),
                    "provider": s.get("provider"),
                    "capabilityLevel": s.get("capability_level"),
                }
                for s in self.store.steps(run_id)
            ]
        return out

    def list(
        self,
        status: str | None = None,
        template_id: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> dict[str, Any]:
        self.reap()
        rows, total = self.store.list_runs(
            status, template_id, max(1, min(limit, 100)), max(0, offset)
        )
        runs = [
            {
                "runId": r.run_id,
                "templateId": r.template_id,
                "status": r.status,
                "createdAt": iso(r.created_at),
                "updatedAt": iso(r.updated_at),
            }
            for r in rows
        ]
        return {"runs": runs, "total": total}

    def cancel(self, run_id: str, force: bool = False) -> dict[str, Any]:
        row = self.row(run_id)
        if RunStatus(row.status).terminal:
            return {"cancelRequested": False, "currentStatus": row.status}
        self.store.request_cancel(run_id, force)
        live = self.live.get(run_id)
        if live is not None and live.execution is not None:
            live.execution.cancel_requested = True
            if force and live.scope is not None:
                live.scope.cancel()
        return {"cancelRequested": True, "currentStatus": self.row(run_id).status}


def _call_of(record: StepRecord) -> dict[str, Any] | None:
    """A succeeded action call, whole, for templates recorded from the run (save_template)."""
    if record.call is None:
        return None
    return {"step_id": record.step_id, "item_index": record.item_index, **record.call}


def _mask(value: Any, secrets: list[str]) -> Any:
    """The value with every secret input's text replaced by ***."""
    if not secrets or value is None:
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    for secret in secrets:
        text = text.replace(json.dumps(secret, ensure_ascii=False)[1:-1], "***")
    return json.loads(text)


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
