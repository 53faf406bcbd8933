"""How a run ends: its output evaluated, partial success decided, the outputs schema checked,
secrets masked, a large result kept as an artifact, and the terminal row written to the store.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import anyio

from taskplate.contract import ErrorCode, RunStatus, TaskplateError, capped
from taskplate.dsl import Template, render, schema_failures
from taskplate.stdlib import json_text, walked

from .._artifacts import ArtifactStore
from .._executor import Execution
from .._step_log import Progress, StepRow
from ..store import STORE_WRITE_S, Store
from ._inputs import Limits


@dataclass
class Settlement:
    store: Store
    artifacts: ArtifactStore
    limits: Limits

    def output(self, template: Template, scope: dict[str, Any]) -> Any:
        if template.output is None:
            return scope["steps"]
        try:
            return render(template.output, scope)
        except Exception:
            return {k: v for k, v in scope["steps"].items() if v is not None}

    async def settle(
        self, run_id: str, template: Template, result: Any, execution: Execution
    ) -> None:
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
            problems = schema_failures(template.outputs_schema, result)
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
        await self.finish(run_id, status, result, error, execution.progress, execution.secrets)

    async def finish(
        self,
        run_id: str,
        status: RunStatus,
        result: Any,
        error: dict[str, Any] | None,
        progress: Progress,
        secrets: list[str] | None = None,
    ) -> None:
        # Values are bounded where they are made; what expressions built of them is cut here,
        # so no result is stored that its run's readers could not serialize.
        result = await walked(capped, result)
        result, error = mask(result, secrets or []), mask(error, secrets or [])
        encoded = (await json_text(result)).encode()  # megabytes in pieces: other runs go on
        if len(encoded) > self.limits.max_artifact_inline_bytes:
            row = await self.store.run(run_id)  # the artifact is its run's caller's
            artifact_id = await self.artifacts.save(
                run_id,
                "result.json",
                encoded,
                "application/json",
                row.principal if row is not None else None,
            )
            summary = result.get("summary") if isinstance(result, dict) else None
            result = {"resultArtifactId": artifact_id, "truncated": True, "summary": summary}
        # The terminal row is written even while the run is being canceled (bounded).
        with anyio.CancelScope(shield=True), anyio.move_on_after(STORE_WRITE_S):
            await self.store.update_run(
                run_id,
                status=str(status),
                result=result,
                error=error,
                progress=progress.to_json(ended=True),
                ended_at=time.time(),
            )


async def never_hanging(store: Store, run_id: str) -> None:
    """A run that ended here without a terminal row fails (never left `running`)."""
    row = await store.run(run_id)
    if row is not None and not RunStatus(row.status).terminal:
        error = TaskplateError(
            ErrorCode.EXECUTION_ERROR, "the run stopped without a result", "Run it again."
        )
        await store.update_run(
            run_id, status=str(RunStatus.FAILED), error=error.to_json(), ended_at=time.time()
        )


def call_of(row: StepRow) -> dict[str, Any] | None:
    """A succeeded action call, whole, for templates recorded from the run (save_template)."""
    if row.call is None:
        return None
    return {"step_id": row.step_id, "item_index": row.item_index, **row.call}


def mask(value: Any, secrets: list[str]) -> Any:
    """The value with every secret input's text replaced by ***."""
    if not secrets or value is None:
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    for secret in secrets:
        text = text.replace(json.dumps(secret, ensure_ascii=False)[1:-1], "***")
    return json.loads(text)
