"""`cycle`: `needs` never wait in a circle, nor on the step itself.

One diagnostic per strongly connected component of a list of siblings (`_needs_graph.py`),
a shortest cycle shown and the others of the component named.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity

_SHOWN_IN_CYCLE = 10


def _on_graph(ctx: Context, report: Report) -> None:
    for siblings in ctx.sibling_lists():
        if not any(s.needs for s in siblings):
            continue
        for step in siblings:
            if step.id in step.needs:
                listed = isinstance(ctx.node(f"{step.pointer}/needs"), list)
                for i, need in enumerate(step.needs):
                    if need == step.id:
                        where = f"{step.pointer}/needs" + (f"/{i}" if listed else "")
                        report(f'step "{need}" needs itself', where)
        for cycle, others in ctx.needs_graph(siblings).cycles():
            first = siblings[cycle[0]]
            names = [siblings[i].id or "" for i in cycle]
            if len(names) > _SHOWN_IN_CYCLE:
                names = [*names[: _SHOWN_IN_CYCLE - 2], f"… ({len(cycle)} steps)", names[-1]]
            message = f"needs form a cycle: {' → '.join([*names, names[0]])}"
            if others:
                shown = ", ".join(siblings[i].id or "" for i in others[:_SHOWN_IN_CYCLE])
                more = ", …" if len(others) > _SHOWN_IN_CYCLE else ""
                message += (
                    f"; {len(others)} more steps wait on these and on one another: {shown}{more}"
                )
            report(message, f"{first.pointer}/needs")


RULE = Rule(
    "cycle",
    Severity.ERROR,
    "`needs` that form a cycle: one cycle per group of steps that wait on one another (a "
    "strongly connected component), the others of the group named after it",
    on_graph=_on_graph,
)
