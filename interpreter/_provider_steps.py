"""What a step needs to know of who serves its action: a provider's tool that is gone, a
side effect a remote caller must confirm, a timeout that is the provider's. No run logic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taskplate.dsl import ActionSpec, ErrorCode, Level, Step, TaskplateError, TrustLevel


def action_of(
    catalog: Mapping[str, ActionSpec], step: Step, item: int | None, failed: Any
) -> ActionSpec:
    """The step's action; a provider's tool that went away since the template was checked
    fails the step with PROVIDER_UNAVAILABLE."""
    assert step.action is not None
    spec = catalog.get(step.action)
    if spec is None:
        raise failed(
            step,
            TaskplateError(
                ErrorCode.PROVIDER_UNAVAILABLE,
                f'action "{step.action}" is not served now (its provider is gone or changed)',
                "See dsl doctor and the configuration (taskplate.toml); run again later.",
            ),
            item,
        )
    return spec


def before_call(
    spec: ActionSpec, trust: TrustLevel, step: Step, item: int | None, failed: Any
) -> None:
    """A provider's tool with side effects needs the caller's confirmation; until callers can
    give it (elicitation), remote callers are refused with CONFIRMATION_REQUIRED."""
    if spec.requires_confirm and trust is TrustLevel.REMOTE and spec.level is not Level.L2:
        raise failed(
            step,
            TaskplateError(
                ErrorCode.CONFIRMATION_REQUIRED,
                f'action "{spec.name}" of provider {spec.provider} has side effects ({spec.level}) '
                "and needs the caller's confirmation, which remote callers cannot give yet",
                "Run the template locally (stdio), or have the operator mark the tool read-only "
                "(levels in taskplate.toml) if it is.",
                {"provider": spec.provider},
            ),
            item,
        )


def timeout_error(spec: ActionSpec, step: Step, timeout: Any) -> TaskplateError:
    if spec.provider != "builtin":
        return TaskplateError(
            ErrorCode.PROVIDER_TIMEOUT,
            f"step {step.label}: {spec.name} of provider {spec.provider} took longer than {timeout} ms",
            "Raise the step's timeoutMs, or look at the provider (dsl doctor).",
            {"provider": spec.provider},
        )
    return TaskplateError(
        ErrorCode.STEP_TIMEOUT,
        f"step {step.label} took longer than {timeout} ms",
        "Raise timeoutMs.",
    )
