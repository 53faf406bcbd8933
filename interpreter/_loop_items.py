"""A `forEach`'s items: given at once, or growing while the loop runs (`enqueue`), each once by
its key (`uniqueBy`), up to the loop's bound (`maxItems`), breadth first; their results in order.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from taskplate.dsl import ExpressionError, Step, render

from ._step_failures import invalid, render_step
from ._step_log import StepLog, outermost


def bound_of(step: Step, scope: dict[str, Any], item: int | None, limit: int | None) -> int:
    """A growing loop's maxItems, within the template's limits.maxItems (`limit`)."""
    most = render_step(step, step.max_items, scope, item) if step.max_items else None
    if isinstance(most, bool) or not isinstance(most, int | float) or most < 1:
        raise invalid(
            step,
            f"maxItems of step {step.label} must be a whole number of at least 1, got {most!r}",
            "Give the growing forEach a bound (maxItems).",
            item,
        )
    return min(int(most), limit) if limit is not None else int(most)


def enqueued(step: Step, scope: dict[str, Any], index: int) -> list[Any]:
    """What a finished item adds to its growing loop; a wrong value fails the item."""
    assert step.enqueue is not None
    added = render_step(step, step.enqueue, scope, index)
    if added is None:
        return []
    if not isinstance(added, list):
        raise invalid(
            step,
            f"enqueue of step {step.label} needs a list, got {type(added).__name__}",
            "Enqueue a list of items (an empty list adds none).",
            index,
        )
    return added


def per_item(loop: Step) -> int:
    """The action steps one item of the loop executes."""
    return sum(s.action_count for s in loop.steps)


@dataclass
class LoopItems:
    step: Step
    scope: dict[str, Any]
    log: StepLog  # counts each item and its steps as it joins
    bound: int | None  # a growing loop's; None: every item given joins
    results: list[dict[str, Any] | None] = field(default_factory=list)
    waiting: deque[tuple[int, Any, int]] = field(default_factory=deque)  # (index, item, depth)
    seen: set[str] = field(default_factory=set)
    dropped: int = 0

    def admit(self, values: list[Any], depth: int) -> None:
        """Items join the loop: each once by its key, until the bound (the rest dropped)."""
        progress = self.log.progress
        for value in values:
            if self.bound is not None:
                key = self._key(value)
                if key in self.seen:
                    continue
                if len(self.results) >= self.bound:
                    self.dropped += 1
                    continue
                self.seen.add(key)
            self.waiting.append((len(self.results), value, depth))
            self.results.append(None)
            if outermost():  # an inner loop's rows are not the run's items
                progress.items_total += 1
            progress.total_steps += per_item(self.step)
        self.log.changed()

    def _key(self, value: Any) -> str:
        """An item's dedup key: `uniqueBy` with the item named, else the item itself."""
        key = value
        if self.step.unique_by is not None:
            try:
                key = render(self.step.unique_by, {**self.scope, self.step.var: value})
            except ExpressionError:
                key = value
        return key if isinstance(key, str) else json.dumps(key, sort_keys=True, default=str)

    def fill(self, loop_result: dict[str, Any]) -> None:
        """The loop's result: its finished items in order and their summary."""
        done = [r for r in self.results if r is not None]
        loop_result["items"] = done
        loop_result["summary"] = {
            "total": len(self.results),
            "succeeded": sum(1 for r in done if r.get("success")),
            "failed": sum(1 for r in done if not r.get("success")),
            "skipped": len(self.results) - len(done),
        }
        if self.bound is not None:
            loop_result["summary"]["dropped"] = self.dropped
