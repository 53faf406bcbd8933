"""`enqueue-bound`: a forEach that grows has a bound (`maxItems`).

Reads each loop step's keys; `maxItems` above `limits.maxItems` is the `limits` rule's.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._model import Step


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    if step.is_loop and step.enqueue is not None and step.max_items is None:
        report(
            f"forEach {step.label} grows (enqueue) but has no maxItems; give it a bound, "
            "such as maxItems: ${{ inputs.maxPages }}",
            f"{step.pointer}/enqueue",
            key=True,
        )


RULE = Rule(
    "enqueue-bound",
    Severity.ERROR,
    "a growing `forEach` (with `enqueue`) without `maxItems`; `maxItems` above "
    "`limits.maxItems` is a `limits` error",
    on_step=_on_step,
)
