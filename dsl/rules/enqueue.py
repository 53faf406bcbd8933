"""`enqueue`: `uniqueBy` and `maxItems` only on a forEach that grows (has `enqueue`).

Reads each loop step's keys.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._model import Step


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    if not step.is_loop or step.enqueue is not None:
        return
    for key, value in (("uniqueBy", step.unique_by), ("maxItems", step.max_items)):
        if value is not None:
            report(
                f'"{key}" only applies to a forEach that grows (with enqueue)',
                f"{step.pointer}/{key}",
                key=True,
            )


RULE = Rule(
    "enqueue",
    Severity.ERROR,
    "`uniqueBy` or `maxItems` on a `forEach` that does not grow (has no `enqueue`)",
    on_step=_on_step,
)
