"""One run executing in this process: what the process holds of it (`Live`), and its step graph
run under the effective timeout, canceled cooperatively or by force, then handed to settlement.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from taskplate.browser import Session
from taskplate.dsl import ErrorCode, RunStatus, TaskplateError, Template
from taskplate.stdlib import Sampler

from ._confirm import Asker
from ._executor import Canceled, Execution, Progress, StepFailed, StepRecord
from ._run_settlement import Settlement
from ._run_views import iso
from ._tracing import RunTrace


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
