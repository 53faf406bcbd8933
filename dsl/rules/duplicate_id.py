"""`duplicate-id`: step ids are unique in the whole template, not only among siblings.

Points at the second id and names the line of the first.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity
from .._model import Step


def _on_graph(ctx: Context, report: Report) -> None:
    seen: dict[str, Step] = {}
    for step, _data in ctx.step_maps:
        if step.id is None:
            continue
        if step.id in seen:
            first = ctx.loaded.span(f"{seen[step.id].pointer}/id")
            report(
                f'duplicate step id "{step.id}" (first used at line {first.line})',
                f"{step.pointer}/id",
            )
        else:
            seen[step.id] = step


RULE = Rule(
    "duplicate-id",
    Severity.ERROR,
    "two steps with the same id anywhere in the template",
    on_graph=_on_graph,
)
