"""`template-schema`: the template's keys, their types and values, and each step's shape.

The meta-schema itself is checked first, by `_check_recovery.py` under this rule (it renames
misspelt keys for every rule after it); here: what a step must be, and `outputs` without `output`.
"""

from __future__ import annotations

from typing import Any

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity
from .._model import Step
from .._values import Const

_GROWING = ("enqueue", "uniqueBy", "maxItems")
_FOREACH_ONLY = ("as", "concurrency", "steps", "collect", *_GROWING)
_ACTION_ONLY = ("confirm", "onDecline")
_NOT_IN_GROUPS = (
    "with",
    "as",
    "concurrency",
    "collect",
    *_GROWING,
    "retry",
    "timeoutMs",
    "onError",
    "tab",
)


def _on_graph(ctx: Context, report: Report) -> None:
    for step, data in ctx.step_maps:
        _shape(step, data, report)
    if ctx.template.outputs_schema is not None and ctx.template.output is None:
        report(
            "outputs is declared but there is no output to check against it", "/outputs", key=True
        )


def _shape(step: Step, data: dict[str, Any], report: Report) -> None:
    has_action, has_loop = "action" in data, "forEach" in data
    if has_action and has_loop:
        report(
            f"step {step.label} has both action and forEach; a step is one or the other",
            f"{step.pointer}/forEach",
            key=True,
        )
    elif not has_action and not has_loop and "steps" not in data:
        report(f"step {step.label} needs action, forEach, or steps (a group)", step.pointer)
    elif has_action:
        _not_here(step, data, _FOREACH_ONLY, '"{}" only applies to forEach steps', report)
    elif has_loop:
        _not_here(step, data, ("with", *_ACTION_ONLY), '"{}" only applies to action steps', report)
        if "steps" not in data:
            report(f"forEach step {step.label} needs steps to run for each item", step.pointer)
    else:
        _not_here(
            step,
            data,
            (*_NOT_IN_GROUPS, *_ACTION_ONLY),
            '"{}" does not apply to a step group (steps without action or forEach); '
            "put it on the steps inside",
            report,
        )
    if "onResume" in data and (has_action or has_loop):
        report(
            f'"onResume" only applies to a step group (steps without action or forEach); put '
            f"step {step.label} in a group with onResume: restart",
            f"{step.pointer}/onResume",
            key=True,
        )
    tab = step.tab
    if isinstance(tab, Const) and tab.value not in ("new", "main") and isinstance(tab.value, str):
        report(
            f'"tab" must be new, main or an expression yielding a tab id, got "{tab.value}"',
            f"{step.pointer}/tab",
        )


def _not_here(
    step: Step, data: dict[str, Any], keys: tuple[str, ...], message: str, report: Report
) -> None:
    for key in keys:
        if key in data:
            report(message.format(key), f"{step.pointer}/{key}", key=True)


RULE = Rule(
    "template-schema",
    Severity.ERROR,
    "unknown keys (with the allowed ones or the closest), missing keys, wrong types and values, "
    "against [template.schema.json](template.schema.json); a step with both `action` and "
    "`forEach`, or none of `action`, `forEach` and `steps` (a group); loop keys on action "
    "steps; action and retry keys on a group; `confirm` or `onDecline` on a loop or a group "
    "(they belong on action steps); `onResume` on an action or a loop (it belongs on a group); "
    "`onDecline` other than `fail` or `skip`; `outputs` without `output`",
    on_graph=_on_graph,
)
