"""One run executing in this process: what the process holds of it (`Live`), and its step graph
run under the effective timeout, canceled cooperatively or by force, then handed to settlement.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.browser import Session
from taskplate.contract import ErrorCode, RunStatus, TaskplateError, TrustLevel
from taskplate.dsl import Template
from taskplate.stdlib import Sampler

from ._artifacts import RunArtifacts
from ._confirm import Asker, Confirmer
from ._executor import Canceled, Execution, Progress, StepFailed, StepRecord
from ._human import RunDesk
from ._run_settlement import Settlement, call_of
from ._run_views import iso
from ._tracing import RunTrace, failure_screenshot

if TYPE_CHECKING:
    from ._runs import RunManager


log = logging.getLogger("taskplate.runs")


def internal(exc: BaseException) -> str:
    """What an internal error was, for the run's error: each exception a group holds, with
    where it was raised (the whole traceback goes to the log)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(internal(inner) for inner in exc.exceptions)
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" (at {where[0].filename.rsplit('/', 1)[-1]}:{where[0].lineno})" if where else ""
    return f"{type(exc).__name__}: {exc}{at}"


@dataclass
class Live:
    """What this process holds of a run it owns."""

    done: anyio.Event = field(default_factory=anyio.Event)
    execution: Execution | None = None
    scope: anyio.CancelScope | None = None
    progress_listeners: list[Callable[[Progress], None]] = field(default_factory=list)
    step_listeners: list[Callable[[StepRecord], None]] = field(default_factory=list)
    trace: RunTrace | None = None
    asker: Asker | None = None  # the caller's way to its user (confirm, hand_over)
    sampler: Sampler | None = None  # the caller's language model, for llm_extract
    progress: Progress | None = None  # the newest progress, and whether the store has it
    progress_unsaved: bool = False
    progress_saved_at: float = 0.0  # time.monotonic() of its last write


def new_execution(
    manager: RunManager,
    run_id: str,
    template: Template,
    trust: TrustLevel,
    live: Live,
    session: Callable[[], Any],
    given: Session | None,
    record: Callable[[StepRecord], None],
    progress: Callable[[Progress], None],
    secret_values: list[str],
) -> Execution:
    """The run's execution wired to the manager: its artifacts, profiles, URL policy, the
    caller's confirmations and language model, and its desk for hand-overs to a person."""
    execution = Execution(
        template,
        trust,
        session,
        RunArtifacts(manager.artifacts, run_id),
        record,
        progress,
        secrets=secret_values,
        profiles=manager.profiles,
        on_failure=failure_screenshot,
        policy=given.policy if given is not None else manager.url_policy(trust),
        web_config=manager.web,
        catalog=manager.library.actions or manager.library.catalog,
        confirmer=Confirmer(trust, live.asker, manager.confirm, manager.terminal),
        sampler=live.sampler,
    )
    execution.human = RunDesk(
        manager.store,
        run_id,
        trust,
        live.asker or (manager.terminal if trust is TrustLevel.LOCAL else None),
        lambda: execution.cancel_requested,
        lambda: live.scope.cancel() if live.scope is not None else None,
        execution.secrets,
    )
    return execution


def step_fields(r: StepRecord) -> dict[str, Any]:
    """A step record as the store's `record_step`/`keep_step` take it (its call whole too)."""
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
    }


async def admit_and_execute(
    run_id: str,
    template: Template,
    inputs: dict[str, Any],
    options: dict[str, Any],
    execution: Execution,
    live: Live,
    session: Callable[[], Any],
    given: Session | None,
    manager: RunManager,
) -> None:
    """Wait for a slot of the queue, then execute; canceled while queued, or failed by an
    internal error, the run is settled all the same."""
    settlement = manager.settlement
    try:
        async with manager.queue.slots:
            if not await manager.queue.admitted(run_id):
                await settlement.finish(run_id, RunStatus.CANCELED, None, None, execution.progress)
                return
            live.execution = execution
            await execute(
                run_id, template, inputs, options, execution, live, session, given, settlement
            )
    except Exception as exc:
        log.exception("run %s failed with an internal error", run_id)
        error = TaskplateError(
            ErrorCode.EXECUTION_ERROR, f"internal error: {internal(exc)}", "Report this as a bug."
        )
        await settlement.finish(
            run_id, RunStatus.FAILED, None, error.to_json(), execution.progress, execution.secrets
        )


async def execute(
    run_id: str,
    template: Template,
    inputs: dict[str, Any],
    options: dict[str, Any],
    execution: Execution,
    live: Live,
    session: Callable[[], Any],
    given: Session | None,
    settlement: Settlement,
) -> None:
    """One run's step graph under its effective timeout, cancelable by force; then settled."""
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
    result = settlement.output(template, scope)
    if canceled:
        await settlement.finish(
            run_id, RunStatus.CANCELED, result, None, execution.progress, execution.secrets
        )
    elif timed_out:
        error = TaskplateError(
            ErrorCode.RUN_TIMEOUT,
            f"the run took longer than {timeout_ms} ms",
            "Raise options.timeoutMs (up to the template's maxTimeoutMs) or give fewer items.",
            {"runId": run_id},
        )
        await settlement.finish(
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
            failure.error.recover_hint or "See the step's error in get_task_run with includeSteps.",
            {
                "runId": run_id,
                "failedStep": step.id or step.pointer,
                "stepErrorCode": str(failure.error.code),
            },
        )
        await settlement.finish(
            run_id,
            RunStatus.FAILED,
            result,
            error.to_json(),
            execution.progress,
            execution.secrets,
        )
    else:
        await settlement.settle(run_id, template, result, execution)
