"""What a step needs to know of who serves its action: a provider's tool that is gone, a
timeout that is the provider's (a side effect a caller must confirm: `_confirm.py`). No run logic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import ActionSpec, Step


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
