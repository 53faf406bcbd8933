"""What a run tells of its steps: `Progress`, a `StepRow` for every step execution, and
`StepLog`, which numbers, records (previews masked) and counts them. Runs no step.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from taskplate.contract import StepStatus
from taskplate.dsl import Const, Step

from ._templates_from_calls import marked, typed_secret

PREVIEW_CHARS = 200
MAX_WARNINGS = 20
# Steps executed so far by the current forEach item (each item task sets its own counter).
_ITEM_STEPS: ContextVar[list[int] | None] = ContextVar("taskplate_item_steps", default=None)
# The loops the current item is in, outermost first: (the loop's step path, the item's index).
_ITEMS: ContextVar[tuple[tuple[str, int], ...]] = ContextVar("taskplate_items", default=())


@contextmanager
def in_item(loop: Step, index: int) -> Iterator[None]:
    """Steps run in here are item `index` of `loop` (within the items they are in already)."""
    token = _ITEMS.set((*_ITEMS.get(), (loop.path, index)))
    try:
        yield
    finally:
        _ITEMS.reset(token)


def placed(step: Step) -> str:
    """The step's path with the index of each item it runs in: pages[3]/rows[0]/open."""
    parts = step.path.split("/")
    for loop, index in _ITEMS.get():
        at = loop.count("/")
        if at < len(parts):
            parts[at] += f"[{index}]"
    return "/".join(parts)


def outermost() -> bool:
    """Whether what runs now is in no loop item: a loop here is an outermost one, whose items
    are the run's items (an inner loop's rows are steps of those)."""
    return not _ITEMS.get()


@dataclass
class Progress:
    total_steps: int = 0
    done_steps: int = 0
    items_total: int = 0  # the outermost loops' items known so far
    items_done: int = 0
    items_succeeded: int = 0
    items_failed: int = 0
    has_loop: bool = False
    growing: bool = False  # an outermost loop adds items as it goes (enqueue): a total so far
    started_at: float | None = None  # when the first outermost loop started (time.time())
    # The steps' warnings, placed ("pages[3]/read: ..."): the run's own, at most MAX_WARNINGS.
    warnings: list[str] = field(default_factory=list)

    def loop_started(self, growing: bool) -> None:
        self.has_loop = True
        self.growing = self.growing or growing
        self.started_at = self.started_at or time.time()

    def eta_ms(self, now: float | None = None) -> int | None:
        """The time the known items left take at the rate items finished so far; None until
        one has, or when none is left."""
        if not self.items_done or self.started_at is None or self.items_done >= self.items_total:
            return None
        spent = max(0.0, (now or time.time()) - self.started_at)
        return int(spent * 1000 * (self.items_total - self.items_done) / self.items_done)

    def counted(self) -> tuple[int, int, str]:
        """(done, total, noun): a loop's items when the run has one, else its steps."""
        if self.has_loop:
            return self.items_done, self.items_total, "items"
        return self.done_steps, self.total_steps, "steps"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Progress:
        """The progress a run's view shows (`to_json`'s form) back as a Progress."""
        items = data.get("items")
        return cls(
            total_steps=data.get("totalSteps", 0),
            done_steps=data.get("doneSteps", 0),
            items_total=items["total"] if items else 0,
            items_done=items["done"] if items else 0,
            items_succeeded=items.get("succeeded", 0) if items else 0,
            items_failed=items.get("failed", 0) if items else 0,
            has_loop=items is not None,
            growing=bool(items and items.get("growing")),
            warnings=list(data.get("warnings", [])),
        )

    def to_json(self, ended: bool = False) -> dict[str, Any]:
        """The progress as runs show it; `ended`: the run's last, with no time left to tell."""
        out: dict[str, Any] = {"totalSteps": self.total_steps, "doneSteps": self.done_steps}
        if self.has_loop:
            out["items"] = {
                "total": self.items_total,
                "done": self.items_done,
                "succeeded": self.items_succeeded,
                "failed": self.items_failed,
            }
            if self.growing:
                out["items"]["growing"] = True
            eta = None if ended else self.eta_ms()
            if eta is not None:
                out["items"]["etaMs"] = eta
        if self.warnings:
            out["warnings"] = self.warnings
        return out

    def warned(self, where: str, warnings: Any, secrets: list[str]) -> None:
        """A step's warnings kept as the run's (masked, each cut to a preview, a bounded
        number: a loop of many items warning alike would otherwise fill the run's row)."""
        for warning in warnings if isinstance(warnings, list) else []:
            text = preview(f"{where}: {warning}", secrets)
            if len(self.warnings) < MAX_WARNINGS and text not in self.warnings:
                self.warnings.append(text)


def progress_text(progress: dict[str, Any]) -> str:
    """A run's progress (`Progress.to_json`'s form) in words, as the runs page, `dsl run` and
    MCP progress notifications say it: 28 of 29+ items done (the loop grows), about 12 s left."""
    items = progress.get("items")
    if not items:
        return f"{progress.get('doneSteps', 0)} of {progress.get('totalSteps', 0)} steps done"
    plus = "+" if items.get("growing") else ""
    text = f"{items['done']} of {items['total']}{plus} items done"
    if items.get("failed"):
        text += f", {items['failed']} failed"
    if items.get("growing"):
        text += " (the loop grows: the total is what is known so far)"
    left = time_left(progress)
    return f"{text}, about {left} left" if left else text


def time_left(progress: dict[str, Any]) -> str:
    """The estimate of `progress_text` alone ("12 s", "3 min"), or "" while there is none."""
    eta = (progress.get("items") or {}).get("etaMs")
    if eta is None:
        return ""
    seconds = eta / 1000
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 3600 else f"{seconds / 3600:.1f} h"


@dataclass
class StepRow:
    seq: int
    step_id: str | None
    item_index: int | None
    action: str | None
    status: StepStatus
    attempts: int
    started_at: float
    ended_at: float
    args_preview: str | None = None
    result_preview: str | None = None
    error: dict[str, Any] | None = None
    # a succeeded action's call kept whole for recorded templates (secrets marked, never clear)
    call: dict[str, Any] | None = None
    tab_id: str | None = None  # the tab a browser step ran in
    screenshot_artifact_id: str | None = None  # the page when a browser step failed
    provider: str | None = None  # builtin, or the MCP server that served the action
    capability_level: str | None = None
    confirmation: dict[str, Any] | None = None  # the question asked before the step, its answer
    path: str | None = None  # where it ran: its path of ids with each item's index, pages[3]/open


def preview(value: Any, secrets: list[str]) -> str:
    text = _masked(value if isinstance(value, str) else _head(value, secrets), secrets)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def _head(value: Any, secrets: list[str]) -> str:
    """The value's JSON, or only as much of it as a preview shows: a page's megabytes are not
    written out twice a step on the event loop. Read far enough past the cut that no secret
    straddles it, masks counted."""
    longest = max(map(len, secrets), default=0)
    parts: list[str] = []
    size, enough = 0, PREVIEW_CHARS + longest + 1
    for part in json.JSONEncoder(ensure_ascii=False, default=str).iterencode(value):
        parts.append(part)
        size += len(part)
        if size >= enough:
            text = "".join(parts)
            if len(_masked(text, secrets)) > PREVIEW_CHARS + longest:
                return text
            enough *= 2  # masks shortened it: read on
    return "".join(parts)


def _masked(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


def count_item_steps() -> list[int]:
    """A counter of the steps the current item executes (its task's own)."""
    executed = [0]
    _ITEM_STEPS.set(executed)
    return executed


@dataclass
class StepLog:
    log_row: Callable[[StepRow], None]
    on_progress: Callable[[Progress], None]
    catalog: Any  # for who served an action, and at which level
    secrets: list[str]  # the run's, masked in every preview; grows as secrets are typed
    progress: Progress = field(default_factory=Progress)
    _seq: itertools.count[int] = field(default_factory=itertools.count)

    def changed(self) -> None:
        self.on_progress(self.progress)

    def go_on_from(self, seq: int) -> None:
        """Number rows from `seq` on: a resumed run's follow those its dead process wrote."""
        self._seq = itertools.count(seq)

    def done(self, count: int = 1) -> None:
        self.progress.done_steps += count
        counter = _ITEM_STEPS.get()
        if counter is not None:
            counter[0] += count
        self.changed()

    def skipped(self, step: Step, item: int | None) -> None:
        """A step whose `when` was false, and every action under it, counted as done."""
        now = time.time()
        self._row(step, item, (StepStatus.SKIPPED, 0, now, now))
        if step.action_count:
            self.done(step.action_count)

    def action(
        self,
        step: Step,
        item: int | None,
        status: StepStatus,
        attempts: int,
        started: float,
        args: Any,
        *,
        result: Any = None,
        error: dict[str, Any] | None = None,
        call: dict[str, Any] | None = None,
        tab: str | None = None,
        screenshot: str | None = None,
        confirmation: dict[str, Any] | None = None,
    ) -> None:
        """One step execution recorded (previews masked) and counted."""
        spec = self.catalog.get(step.action) if step.action else None
        self._row(
            step,
            item,
            (status, attempts, started, time.time()),
            args_preview=preview(args, self.secrets) if args is not None else None,
            result_preview=preview(result, self.secrets)
            if status is StepStatus.SUCCEEDED
            else None,
            error=error,
            call=call,
            tab_id=tab,
            screenshot_artifact_id=screenshot,
            provider=spec.provider if spec is not None else None,
            capability_level=str(spec.level) if spec is not None else None,
            confirmation=confirmation,
        )
        if status is StepStatus.SUCCEEDED and isinstance(result, dict) and "warnings" in result:
            self.progress.warned(placed(step), result["warnings"], self.secrets)
        self.done()

    def _row(
        self, step: Step, item: int | None, how: tuple[StepStatus, int, float, float], **fields: Any
    ) -> None:
        """The step execution's row, numbered in order and placed by its path, to the log; `how`:
        its status, attempts, start and end."""
        at = placed(step)
        self.log_row(
            StepRow(
                next(self._seq),
                step.id,
                item,
                step.action,
                *how,
                path=at,
                **fields,
            )
        )

    def call(self, step: Step, args: Any, result: Any, tab_id: str | None) -> dict[str, Any]:
        """The call as a recorded template will repeat it: every argument, secrets marked."""
        tab = "new" if step.tab == Const("new") else tab_id
        opened = (
            result.get("tabId")
            if step.action == "create_tab" and isinstance(result, dict)
            else None
        )
        return {
            "action": step.action,
            "tab": tab,
            "args": marked(args, self.secrets),
            "opened_tab": opened,
        }

    def note_secret(self, step: Step, args: Any, result: Any) -> None:
        """A value typed as a secret (a password field, `secret: true`) is one of the run's
        secrets from now on: masked like a secret input wherever the run is recorded."""
        secret = typed_secret(step.action, args, result)
        if secret is not None and secret not in self.secrets:
            self.secrets.append(secret)
