"""`unknown-action`: an action step names an action the catalog has.

The catalog says why an `mcp.*` name is missing (`why_unknown`), else the closest action is named.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity
from ..expr import suggest


def _on_graph(ctx: Context, report: Report) -> None:
    catalog = ctx.catalog
    for step, data in ctx.step_maps:
        if "action" not in data or "forEach" in data or not isinstance(step.action, str):
            continue  # both or neither is a template-schema error
        if catalog.get(step.action) is None:
            why = getattr(catalog, "why_unknown", lambda name: None)(step.action)
            report(
                why
                or f'unknown action "{step.action}"{suggest(step.action, list(catalog.names()), "actions")}',
                f"{step.pointer}/action",
            )


RULE = Rule(
    "unknown-action",
    Severity.ERROR,
    "an action name that does not exist (with the closest one); for `mcp.<provider>.<tool>`: a "
    "provider not configured, a lock file missing or unreadable, or a tool the provider does "
    "not have (with the closest tools) — see [providers.md](providers.md)",
    on_graph=_on_graph,
)
