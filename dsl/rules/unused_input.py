"""`unused-input`: every declared input is read somewhere.

Reads what the walks found used; a name under an unknown key or in an expression that does not
parse counts as used, so no warning repeats an error.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule
from .._diagnostics import Severity
from .._yaml import escape_pointer


def _on_template(ctx: Context, report: Report) -> None:
    props = ctx.template.inputs_schema.get("properties")
    if not isinstance(props, dict):
        return
    for name in props:
        if name not in ctx.used_inputs:
            report(
                f'input "{name}" is never used',
                f"/inputs/properties/{escape_pointer(name)}",
                key=True,
            )


RULE = Rule(
    "unused-input",
    Severity.WARNING,
    "an input that no expression reads",
    on_template=_on_template,
)
