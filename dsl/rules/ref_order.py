"""`ref-order`: a step's result is read only where the step has surely run.

The scope walk knows, at each expression, which steps ran before it (siblings in order,
`needs`); `_expr_infer` names this rule for a result read too early.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity


def _on_template(ctx: Context, report: Report) -> None:
    report.expr_problems(ctx)


RULE = Rule(
    "ref-order",
    Severity.ERROR,
    "a step's result read where the step may not have run yet (later sibling, other `needs` "
    "branch, itself)",
    on_template=_on_template,
)
