"""`enqueue-type`: what a growing forEach enqueues is a list of items like its own.

Compares the type the scope walk found for `enqueue` with the loop's item type.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._model import Step
from .._types import ANY, Type


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    added = types.enqueue
    if added is None:
        return
    if added.kind not in ("array", "any", "null"):
        report(f"enqueue needs a list of items, got {added.describe()}", f"{step.pointer}/enqueue")
    elif added.kind == "array" and not _same_shape(added.items or ANY, types.item):
        report(
            f"enqueue adds {(added.items or ANY).describe()} items to a forEach of "
            f"{types.item.describe()} items; enqueue items of the same type",
            f"{step.pointer}/enqueue",
        )


def _same_shape(added: Type, items: Type) -> bool:
    """Whether enqueued items can be items of the loop: same kind, arrays and objects alike."""
    if "any" in (added.kind, items.kind) or "null" in (added.kind, items.kind):
        return True
    if added.kind != items.kind:
        return False
    if added.kind == "array":
        return _same_shape(added.items or ANY, items.items or ANY)
    if added.kind == "object":
        shared = set(added.props) & set(items.props)
        if items.closed and set(added.props) - set(items.props):
            return False
        return all(_same_shape(added.props[k], items.props[k]) for k in shared)
    return True


RULE = Rule(
    "enqueue-type",
    Severity.ERROR,
    "`enqueue` that is not a list, or whose items are not of the loop's items' type",
    on_step=_on_step,
)
