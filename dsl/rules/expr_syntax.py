"""`expr-syntax`: `${{ }}` expressions that do not parse or pass the expression bounds.

Building the step graph compiles every expression once (`_values.py`); this rule reports the
ones that failed, at their exact columns.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity


def _on_graph(ctx: Context, report: Report) -> None:
    for bad in ctx.bad_expressions:
        report.in_expr(bad.message, bad.pointer, bad.start, bad.end)


RULE = Rule(
    "expr-syntax",
    Severity.ERROR,
    "an expression that does not parse, is unclosed, empty, longer than 4096 characters or "
    "nested deeper than 64; expressions of more than 32,768 characters in all in one template "
    "(reported once, where they run out)",
    on_graph=_on_graph,
)
