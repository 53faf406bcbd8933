"""`unused-step`: a step that only reads (a `pure` action) has its result read somewhere.

Reads what the walks found used (expressions, `needs`).
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity


def _on_template(ctx: Context, report: Report) -> None:
    for step in ctx.steps:
        if not step.id or step.id in ctx.used_steps or not step.action:
            continue
        spec = ctx.catalog.get(step.action)
        if spec is not None and spec.pure:
            report(
                f'the result of step "{step.id}" ({spec.name}) is never used',
                f"{step.pointer}/id",
            )


RULE = Rule(
    "unused-step",
    Severity.WARNING,
    "a step without side effects (`set`, `compare`, `get_page_*`, `extract`, `llm_extract`, "
    "`snapshot`) whose result nothing reads",
    on_template=_on_template,
)
