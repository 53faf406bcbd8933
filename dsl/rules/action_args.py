"""`action-args`: an action's literal arguments against its argument schema.

A value an expression computes is unknown until the run: only what fails for written values
is reported (the types of expressions are the `type` rule's).
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._model import Step
from .._schema_errors import explain, validation_errors
from .._schema_fast import is_valid
from .._values import DYNAMIC, Single


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    spec, args = types.spec, types.literal_args
    if spec is None or isinstance(step.args, Single) or not isinstance(args, dict):
        return
    for error in validation_errors(spec.args_schema, args):
        if is_valid(error.schema, error.instance) or error.instance is DYNAMIC:
            continue  # it fails only for a value an expression computes: unknown until run
        for problem in explain(
            error, f'action "{spec.name}"', "the arguments", key_word="argument"
        ):
            report(problem.message, f"{step.pointer}/with{problem.pointer}", key=problem.at_key)
    if spec.check_args is not None:
        for pointer, message in spec.check_args(args):
            report(message, f"{step.pointer}/with{pointer}")


RULE = Rule(
    "action-args",
    Severity.ERROR,
    "arguments against the action's schema: unknown or missing arguments, wrong literal types "
    "and values",
    on_step=_on_step,
)
