"""One run executing in this process (what the process holds of it: `_run_live.Live`): its
life from the queue to its end (`run_job`: its session, trace and records wired to the run's
`RunWiring`), and its step graph under the effective timeout, canceled cooperatively or by force, then settled.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.browser import Network, Session, UrlPolicy, cleanup
from taskplate.contract import (
    ErrorCode,
    RunStatus,
    TaskplateError,
    TrustLevel,
    exception_summary,
    internal_error,
)

from .._artifacts import RunArtifacts
from .._checkpoints import Checkpoints
from .._confirm import Confirmer
from .._executor import Canceled, Drained, Execution
from .._human import RunDesk
from .._step_failures import CancelRequest, StepFailed
from .._step_log import Progress, StepRow
from .._tracing import RunTrace, TraceMode, failure_screenshot
from ..store import STORE_WRITE_S, Store
from ._inputs import profile_for
from ._live import Live
from ._liveness import PROGRESS_WRITE_S
from ._settlement import Settlement, call_of, never_hanging
from ._views import iso
from ._wiring import RunJob, RunWiring

if TYPE_CHECKING:
    from taskplate.stdlib import CookieSource

log = logging.getLogger("taskplate.runs")


def internal(exc: BaseException) -> str:
    """What an internal error was, for the log (the caller sees only `internal_error`'s
    reference to it): each exception a group holds, with where it was raised."""
    return exception_summary(exc)


def save_progress(store: Store, run_id: str, live: Live) -> None:
    """Progress is written at most every PROGRESS_WRITE_S; the manager's watch writes what a
    burst's last change left unsaved, so a reader is never more than that (and a watch) behind."""
    if live.progress is None:
        return
    live.progress_unsaved, live.progress_saved_at = False, time.monotonic()
    done = (live.progress.items_done, live.progress.done_steps)
    if done[0] < live.progress_floor[0] or done[1] < live.progress_floor[1]:
        return  # a resumed run counting again what it finished before: readers keep the last
    store.keep_progress(run_id, live.progress.to_json())


async def run_job(wiring: RunWiring, job: RunJob, live: Live) -> None:
    """The run from its queue to its end: its session opened on first use (or the caller's),
    its steps recorded and its progress kept, then everything it opened closed or published,
    and its row never left unfinished."""
    run_id, template, store = job.run_id, job.template, wiring.store
    own: list[Session] = []
    profiles = wiring.profiles_of(job.trust, job.principal)
    # One URL policy for the run's browser and its plain HTTP: a host is resolved once per run.
    network = job.network or wiring.operator_network()
    policy = (
        job.given.policy
        if job.given is not None
        else wiring.url_policy(job.trust, proxy=network.proxy)
    )
    trace = live.trace = RunTrace(
        TraceMode(job.options.get("trace", "off")),
        RunArtifacts(wiring.artifacts, run_id, job.principal),
        job.secrets,
    )

    async def session() -> Session:
        if job.given is not None:
            await trace.attach(job.given)
            return job.given
        if not own:
            profile = profile_for(template, job.inputs, job.profile_id)
            own.append(
                await wiring.open_session(
                    job.trust, profile, policy, network=network, principal=job.principal
                )
            )
            await store.update_run(run_id, options={**job.options, "sessionId": own[0].id})
            await trace.attach(own[0])
        return own[0]

    def progress(p: Progress) -> None:
        for listener in live.progress_listeners:
            listener(p)
        live.progress, live.progress_unsaved = p, True
        if time.monotonic() - live.progress_saved_at > PROGRESS_WRITE_S:
            save_progress(store, run_id, live)

    def log_row(r: StepRow) -> None:
        trace.log_row(r)
        for listener in live.step_listeners:
            listener(r)
        store.keep_step(run_id, r.seq, **step_fields(r))

    async def cookies() -> Sequence[Mapping[str, Any]]:
        """What the run's plain HTTP starts from: its browser session's cookies when one is
        open, else those of the profile its session would start from."""
        opened = job.given or (own[0] if own else None)
        if opened is not None:
            return await opened.cookies()
        profile = profile_for(template, job.inputs, job.profile_id)
        return list(profiles.read(profile).state.get("cookies", []))

    checkpoints = await run_checkpoints(wiring, job)
    execution = new_execution(
        wiring, job, live, session, log_row, progress, policy, cookies, network, checkpoints
    )
    if job.resumed:  # its rows go on after those of the process that died
        execution.log.go_on_from(max((r["seq"] for r in await store.steps(run_id)), default=-1) + 1)
        live.progress_floor = await progress_floor(store, run_id)
    try:
        await admit_and_execute(wiring, job, execution, live, session)
    finally:
        with cleanup(what=f"closing run {run_id}'s HTTP client"):
            await execution.aclose()
        if own:
            with cleanup(what=f"publishing run {run_id}'s profile"):
                await profiles.settle(own[0])  # the caller's own profile, never another's
        if own and not template.keep_session:
            with cleanup(what=f"closing run {run_id}'s session"):
                await wiring.sessions.close(own[0].id)
        if not live.released:  # a run handed over goes on elsewhere
            with anyio.CancelScope(shield=True), anyio.move_on_after(STORE_WRITE_S):
                await never_hanging(store, run_id)
        live.done.set()


async def progress_floor(store: Store, run_id: str) -> tuple[int, int]:
    """A resumed run's progress as its readers last saw it (items done, steps done): until it
    has counted as far again, it writes none, so a client polling never sees it go back."""
    row = await store.run(run_id)
    shown = (row.progress if row is not None else None) or {}
    return int(shown.get("items", {}).get("done", 0)), int(shown.get("doneSteps", 0))


async def run_checkpoints(wiring: RunWiring, job: RunJob) -> Checkpoints:
    """Where the run keeps what it finishes; a resumed run's with what it finished before."""
    artifacts = RunArtifacts(wiring.artifacts, job.run_id, job.principal)
    bound = wiring.limits.max_artifact_inline_bytes
    if job.resumed:
        return await Checkpoints.load(wiring.store, job.run_id, artifacts, job.secrets, bound)
    return Checkpoints(wiring.store, job.run_id, artifacts, job.secrets, bound)


def new_execution(
    wiring: RunWiring,
    job: RunJob,
    live: Live,
    session: Callable[[], Any],
    log_row: Callable[[StepRow], None],
    progress: Callable[[Progress], None],
    policy: UrlPolicy,
    cookies: CookieSource,
    network: Network | None = None,
    checkpoints: Checkpoints | None = None,
) -> Execution:
    """The run's execution: its artifacts, profiles, URL policy, the cookies its plain HTTP
    starts from, the caller's confirmations and language model, and its desk for hand-overs to
    a person."""
    trust, cancel = job.trust, CancelRequest()
    # the run's network, or that of the session the caller handed in
    network = job.given.network if job.given is not None else network or Network()
    desk = RunDesk(
        wiring.store,
        job.run_id,
        trust,
        live.asker or (wiring.terminal if trust is TrustLevel.LOCAL else None),
        lambda: cancel.requested,
        lambda: live.scope.cancel() if live.scope is not None else None,
        job.secrets,
        window_options=network.window_options(),
    )
    return Execution(
        job.template,
        trust,
        session,
        RunArtifacts(wiring.artifacts, job.run_id, job.principal),
        log_row,
        progress,
        secrets=job.secrets,
        profiles=wiring.profiles_of(job.trust, job.principal),
        on_failure=failure_screenshot,
        probe=wiring.probe,
        policy=policy,
        web_config=wiring.web,
        web_cookies=cookies,
        network=network,
        catalog=wiring.catalog,
        confirmer=Confirmer(trust, live.asker, wiring.confirm, wiring.terminal),
        human=desk,
        sampler=wiring.model_for(live.sampler),
        cancel=cancel,
        checkpoints=checkpoints,
    )


def step_fields(r: StepRow) -> dict[str, Any]:
    """A step row as the store's `write_step`/`keep_step` take it (its call whole too)."""
    return {
        "step_id": r.step_id,
        "item_index": r.item_index,
        "action": r.action,
        "status": str(r.status),
        "attempts": r.attempts,
        "started_at": r.started_at,
        "ended_at": r.ended_at,
        "args_preview": r.args_preview,
        "result_preview": r.result_preview,
        "error": r.error,
        "call": call_of(r),
        "tab_id": r.tab_id,
        "screenshot_artifact_id": r.screenshot_artifact_id,
        "provider": r.provider,
        "capability_level": r.capability_level,
        "confirmation": r.confirmation,
        "step_path": r.path,
    }


async def admit_and_execute(
    wiring: RunWiring,
    job: RunJob,
    execution: Execution,
    live: Live,
    session: Callable[[], Any],
) -> None:
    """Wait for a slot of the queue, then execute; canceled while queued, or failed by an
    internal error, the run is settled all the same."""
    run_id, settlement = job.run_id, wiring.settlement
    try:
        if not job.resumed and not await wiring.queue.admitted(run_id):
            await settlement.finish(run_id, RunStatus.CANCELED, None, None, execution.progress)
            return
        live.execution = execution
        execution.cancel.draining = wiring.queue.draining  # started as its server stops
        await execute(job, execution, live, session, settlement)
    except Drained:
        live.released = True  # not settled: the run manager hands it to another server
    except Exception as exc:
        error = internal_error(exc, f"run {run_id}", log)
        await settlement.finish(
            run_id, RunStatus.FAILED, None, error.to_json(), execution.progress, execution.secrets
        )


async def execute(
    job: RunJob,
    execution: Execution,
    live: Live,
    session: Callable[[], Any],
    settlement: Settlement,
) -> None:
    """One run's step graph under its effective timeout, cancelable by force; then settled."""
    run_id, template, given = job.run_id, job.template, job.given
    run_info = {
        "runId": run_id,
        "templateId": template.id,
        "templateVersion": template.version,
        "sessionId": given.id if given else None,
        "profileId": given.profile_id
        if given
        else profile_for(template, job.inputs, job.profile_id),
        "startedAt": iso(time.time()),
    }
    scope: dict[str, Any] = {"inputs": job.inputs, "steps": {}, "run": run_info}
    if template.keep_session and given is None:
        run_info["sessionId"] = (await session()).id
    execution.count_top_level()
    timeout_ms = job.options["effectiveTimeoutMs"]
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
        if execution.cancel.draining and not execution.cancel.requested:
            raise Drained()  # its drain's grace ran out: its items in flight run again elsewhere
        canceled = True
    if live.trace is not None:  # kept as an artifact before the run reads as finished
        await live.trace.finish(failed=timed_out or failure is not None)
    result = settlement.output(template, scope)
    if not (canceled or timed_out or failure is not None):
        await settlement.settle(run_id, template, result, execution)
        return
    error = None if canceled else run_error(run_id, timeout_ms, None if timed_out else failure)
    await settlement.finish(
        run_id,
        RunStatus.CANCELED if canceled else RunStatus.FAILED,
        result,
        error.to_json() if error is not None else None,
        execution.progress,
        execution.secrets,
    )


def run_error(run_id: str, timeout_ms: int, failure: StepFailed | None) -> TaskplateError:
    """Why a run failed: its time ran out (no step failed), or a step failed."""
    if failure is None:
        return TaskplateError(
            ErrorCode.RUN_TIMEOUT,
            f"the run took longer than {timeout_ms} ms",
            "Raise options.timeoutMs (up to the template's maxTimeoutMs) or give fewer items.",
            {"runId": run_id},
        )
    step = failure.step
    if failure.error.code is ErrorCode.STEP_MAY_HAVE_TAKEN_EFFECT:  # the run's own code
        error = failure.error
        return TaskplateError(
            error.code,
            error.message,
            error.recover_hint,
            {
                **error.details,
                "runId": run_id,
                "failedStep": step.pointer,
                "failedStepId": step.path,
            },
        )
    return TaskplateError(
        ErrorCode.STEP_EXECUTION_FAILED,
        failure.message,
        failure.error.recover_hint or "See the step's error in get_task_run with includeSteps.",
        {
            "runId": run_id,
            "failedStep": step.pointer,
            "failedStepId": step.path,
            "stepErrorCode": str(failure.error.code),
        },
    )
