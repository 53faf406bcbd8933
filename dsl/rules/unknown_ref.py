"""`unknown-ref`: every name a template reads exists where it is read.

Expressions are typed by the scope walk (`_expr_infer` names this rule in its problems); here
also `needs`, which can only name a sibling step.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity
from ..expr import suggest


def _on_graph(ctx: Context, report: Report) -> None:
    for siblings in ctx.sibling_lists():
        ids = {s.id: s for s in siblings if s.id}
        for step in siblings:
            if not step.needs:
                continue
            listed = isinstance(ctx.node(f"{step.pointer}/needs"), list)
            for i, need in enumerate(step.needs):
                if need == step.id or need in ids:
                    continue  # itself: a cycle
                pointer = f"{step.pointer}/needs" + (f"/{i}" if listed else "")
                if need in ctx.step_ids:
                    report(
                        f'needs can only name sibling steps; "{need}" is not a sibling of {step.label}',
                        pointer,
                    )
                else:
                    report(f'needs names no step "{need}"{suggest(need, ids, "siblings")}', pointer)


def _on_template(ctx: Context, report: Report) -> None:
    report.expr_problems(ctx)


RULE = Rule(
    "unknown-ref",
    Severity.ERROR,
    "an unknown input, step, name or function (with the closest one); `needs` naming a missing "
    "or non-sibling step; a step inside a `forEach` read from outside it",
    on_graph=_on_graph,
    on_template=_on_template,
)
