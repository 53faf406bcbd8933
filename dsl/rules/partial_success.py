"""`partial-success`: `partialSuccess` means something for this template.

Reads the template's `partialSuccess` and whether it has a forEach.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity


def _on_graph(ctx: Context, report: Report) -> None:
    ps = ctx.template.partial_success
    if ps.allowed and not any(s.is_loop for s in ctx.steps):
        report(
            "partialSuccess is allowed but the template has no forEach whose items could fail alone",
            "/partialSuccess/allowed",
        )
    if not ps.allowed and ps.threshold is not None:
        report(
            "partialSuccess.threshold has no effect while allowed is false",
            "/partialSuccess/threshold",
        )


RULE = Rule(
    "partial-success",
    Severity.ERROR,
    "partial success allowed without a `forEach`; a threshold while partial success is not allowed",
    on_graph=_on_graph,
)
