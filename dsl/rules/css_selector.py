"""`css-selector`: every literal CSS selector of an action's arguments parses as CSS (a
selector, a root, an extract's fields at every depth), before the run that would fail on it.

Selectors an expression makes are unknown until the run, and not checked.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._model import Step
from .._values import Single
from ..selectors import selector_problem, selectors_in


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    spec, args = types.spec, types.literal_args
    if spec is None or isinstance(step.args, Single) or not isinstance(args, dict):
        return
    seen = set()
    for pointer, text, engine in selectors_in(spec.args_schema, args):
        if pointer in seen or "${{" in text:
            continue
        seen.add(pointer)
        problem = selector_problem(text, engine)
        if problem is not None:
            where = f"{step.pointer}/with{pointer}"
            report.in_expr(problem.message, where, problem.start, problem.end)


RULE = Rule(
    "css-selector",
    Severity.ERROR,
    "CSS selectors of the actions' arguments (selector, root, extract's fields at every "
    "depth) that do not parse as CSS",
    on_step=_on_step,
)
