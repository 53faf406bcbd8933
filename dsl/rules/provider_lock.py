"""`provider-lock`: a provider's tool is checked against a lock file of its configuration.

The catalog (`providers/_catalog.py`) says when a provider's lock file was written for
another configuration (`stale`); a warning, since the tool may still be there.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity


def _on_graph(ctx: Context, report: Report) -> None:
    stale = getattr(ctx.catalog, "stale", None)
    if stale is None:
        return
    for step, data in ctx.step_maps:
        if "action" not in data or "forEach" in data or not isinstance(step.action, str):
            continue
        spec = ctx.catalog.get(step.action)
        why = stale(spec.provider) if spec is not None else None
        if why:
            report(why, f"{step.pointer}/action")


RULE = Rule(
    "provider-lock",
    Severity.WARNING,
    "a step calls a provider whose `providers.lock.json` was written for another configuration "
    "of it (run `dsl providers sync`)",
    on_graph=_on_graph,
)
