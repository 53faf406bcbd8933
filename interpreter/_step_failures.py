"""How a step fails and a run stops: `StepFailed` (a step's error, for its item), `Canceled`,
`Drained` (its server stops), the run's `CancelRequest`, and a step's expression rendered so
that a wrong value names the step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import ExpressionError, Step, render


class StepFailed(Exception):
    def __init__(self, step: Step, error: TaskplateError, item: int | None) -> None:
        super().__init__(error.message)
        self.step = step
        self.error = error
        self.item = item

    @property
    def message(self) -> str:
        """The error as a run or an item reports it: named by the step's path of ids."""
        return f"step {self.step.label} failed: {self.error.message}"


class Canceled(Exception):
    """The run was asked to stop; the step that was running has finished."""


class Drained(Exception):
    """The run's server stops: its items in flight have finished (or the grace ran out) and no
    step or item started after; it goes on elsewhere from what it finished."""


@dataclass
class CancelRequest:
    """Whether the run was asked to stop (looked at before every step and every item), or its
    server drains (`draining`: no new item or top-level step starts; items in flight finish)."""

    requested: bool = False
    draining: bool = False

    def check(self) -> None:
        if self.requested:
            raise Canceled()


def invalid(step: Step, message: str, hint: str, item: int | None) -> StepFailed:
    """The step fails with INVALID_PARAMETER: a value it was given is not one it can use."""
    return StepFailed(step, TaskplateError(ErrorCode.INVALID_PARAMETER, message, hint), item)


def render_step(step: Step, value: Any, scope: dict[str, Any], item: int | None) -> Any:
    """A value of the step rendered in its scope; an expression that fails fails the step."""
    try:
        return render(value, scope)
    except ExpressionError as exc:
        raise invalid(
            step,
            f"step {step.label}: {exc.message}{exc.where()}",
            "Check the expression and the data it reads.",
            item,
        ) from None
