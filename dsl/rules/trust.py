"""`trust`: a template that remote callers may run uses no host-access (L2) action.

Reads each action step's action and the template's `trust`.
"""

from __future__ import annotations

from taskplate.contract import Level, TrustLevel

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._model import Step


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    spec = types.spec
    if spec is not None and spec.level is Level.L2 and TrustLevel.REMOTE in ctx.template.trust:
        report(
            f'action "{spec.name}" needs host access (L2), which remote callers may not use; '
            'remove "remote" from trust or use another action',
            f"{step.pointer}/action",
        )


RULE = Rule(
    "trust",
    Severity.ERROR,
    "a template that allows `remote` callers but uses an L2 (host access) action",
    on_step=_on_step,
)
