"""Runs a step graph: sequential or `needs`-ordered siblings, `when`, retries with backoff,
per-step timeouts, trust re-checks, and `forEach` as a true sliding window of items.

Knows actions only through `run_action`; records every step execution through a callback.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import anyio

from taskplate.browser import MAX_TABS_PER_SESSION, Session
from taskplate.dsl import (
    ErrorCode,
    ExpressionError,
    Step,
    StepStatus,
    TaskplateError,
    Template,
    TrustLevel,
    render,
    truthy,
)
from taskplate.dsl._values import Const
from taskplate.stdlib import REGISTRY, ActionContext, run_action

PREVIEW_CHARS = 200
# A recycled tab serves this many items, then is closed and replaced: what a renderer keeps
# from page to page (history entries, caches, leaks of the pages themselves) cannot add up.
TAB_RETIRES_AFTER = 100
# ... and its renderer collects its garbage after every this many items: left to itself, it let
# the garbage of every page it showed pile up (PSS of 5 tabs: 400 MB after 100 pages, 800 MB
# after 400 without retirement; flat at about 200 MB with a collection every few items).
COLLECT_EVERY = 5
# Steps executed so far by the current forEach item (each item task sets its own counter).
_ITEM_STEPS: ContextVar[list[int] | None] = ContextVar("taskplate_item_steps", default=None)


class StepFailed(Exception):
    def __init__(self, step: Step, error: TaskplateError, item: int | None) -> None:
        super().__init__(error.message)
        self.step = step
        self.error = error
        self.item = item


class Canceled(Exception):
    """The run was asked to stop; the step that was running has finished."""


@dataclass
class Progress:
    total_steps: int = 0
    done_steps: int = 0
    items_total: int = 0
    items_done: int = 0
    items_succeeded: int = 0
    items_failed: int = 0
    has_loop: bool = False

    def counted(self) -> tuple[int, int, str]:
        """(done, total, noun): a loop's items when the run has one, else its steps."""
        if self.has_loop:
            return self.items_done, self.items_total, "items"
        return self.done_steps, self.total_steps, "steps"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"totalSteps": self.total_steps, "doneSteps": self.done_steps}
        if self.has_loop:
            out["items"] = {
                "total": self.items_total,
                "done": self.items_done,
                "succeeded": self.items_succeeded,
                "failed": self.items_failed,
            }
        return out


@dataclass
class StepRecord:
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


def preview(value: Any, secrets: list[str]) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    for secret in secrets:
        text = text.replace(secret, "***")
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


@dataclass
class Execution:
    """One run's executor; owns nothing it did not open (item tabs are closed per item)."""

    template: Template
    trust: TrustLevel
    session_factory: Callable[[], Awaitable[Session]]
    artifacts: Any
    record: Callable[[StepRecord], None]
    on_progress: Callable[[Progress], None]
    secrets: list[str] = field(default_factory=list)
    profiles: Any = None
    cancel_requested: bool = False
    progress: Progress = field(default_factory=Progress)
    loop_items: list[bool] = field(default_factory=list)  # success of every tolerant-loop item
    _seq: itertools.count[int] = field(default_factory=itertools.count)
    _session: Session | None = None

    async def session(self) -> Session:
        if self._session is None:
            self._session = await self.session_factory()
        return self._session

    def check_cancel(self) -> None:
        if self.cancel_requested:
            raise Canceled()

    def _done(self, count: int = 1) -> None:
        self.progress.done_steps += count
        counter = _ITEM_STEPS.get()
        if counter is not None:
            counter[0] += count
        self.on_progress(self.progress)

    def count_top_level(self) -> None:
        """Top-level action steps; loops add their items' steps when they start."""
        self.progress.total_steps = sum(s.action_count for s in self.template.steps)
        self.on_progress(self.progress)

    # -- blocks of sibling steps --------------------------------------------------------------
    async def run_block(
        self, steps: list[Step], scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> None:
        if not any(s.needs for s in steps):
            for step in steps:
                await self.run_step(step, scope, tab_id, item)
            return
        finished = {s.id: anyio.Event() for s in steps if s.id}

        async def one(step: Step) -> None:
            for need in step.needs:
                await finished[need].wait()
            try:
                await self.run_step(step, scope, tab_id, item)
            finally:
                if step.id:
                    finished[step.id].set()

        try:
            async with anyio.create_task_group() as tg:
                for step in steps:
                    tg.start_soon(one, step)
        except* StepFailed as group:
            raise group.exceptions[0] from None
        except* Canceled:
            raise Canceled() from None

    # -- one step ------------------------------------------------------------------------------
    async def run_step(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> None:
        self.check_cancel()
        if step.when is not None and not truthy(self._render(step, step.when, scope, item)):
            now = time.time()
            self.record(
                StepRecord(
                    next(self._seq), step.id, item, step.action, StepStatus.SKIPPED, 0, now, now
                )
            )
            if step.id:
                scope["steps"][step.id] = None
            if step.action_count:
                self._done(step.action_count)
            return
        if step.is_group:
            await self.run_block(step.steps, scope, tab_id, item)
            result = None
        elif step.is_loop:
            result = await self.run_loop(step, scope, tab_id, item)
        else:
            try:
                result = await self.run_action_step(step, scope, tab_id, item)
            except StepFailed:
                if step.on_error != "continue":
                    raise
                result = None  # a tolerated failure reads as a missing result
        if step.id:
            scope["steps"][step.id] = result

    def _render(self, step: Step, value: Any, scope: dict[str, Any], item: int | None) -> Any:
        try:
            return render(value, scope)
        except ExpressionError as exc:
            where = f"step {step.label}"
            error = TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"{where}: {exc.message}",
                "Check the expression and the data it reads.",
            )
            raise StepFailed(step, error, item) from None

    async def _tab(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> tuple[str | None, bool]:
        """The tab the step runs in, and whether the step opened it (and so closes it)."""
        if step.tab is None or step.tab == Const("main"):
            return (tab_id if step.tab is None else None), False
        if step.tab == Const("new"):
            session = await self.session()
            return (await session.new_tab()).id, True
        return str(self._render(step, step.tab, scope, item)), False

    async def run_action_step(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> Any:
        assert step.action is not None
        spec = REGISTRY[step.action]
        started, attempts = time.time(), 0
        args: Any = None
        try:
            if not spec.level.allowed_for(self.trust):
                raise StepFailed(
                    step,
                    TaskplateError(
                        ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
                        f'action "{spec.name}" needs host access ({spec.level}), which {self.trust} callers may not use',
                        "Run the template locally (stdio) or use another action.",
                    ),
                    item,
                )
            args = self._render(step, step.args, scope, item)
            timeout = (
                self._render(step, step.timeout_ms, scope, item)
                if step.timeout_ms is not None
                else None
            )
            session = await self.session() if spec.needs_browser else self._session
            own_tab, opened = (
                await self._tab(step, scope, tab_id, item) if spec.needs_browser else (None, False)
            )
            ctx = ActionContext(
                session=session,
                tab_id=own_tab,
                trust=self.trust,
                artifacts=self.artifacts,
                profiles=self.profiles,
            )
            retry_on = step.retry.on if step.retry.on is not None else spec.retryable
            try:
                while True:
                    attempts += 1
                    try:
                        with anyio.fail_after(timeout / 1000) if timeout else nullcontext():
                            result = await run_action(spec.name, ctx, args)
                        break
                    except TimeoutError:
                        error = TaskplateError(
                            ErrorCode.STEP_TIMEOUT,
                            f"step {step.label} took longer than {timeout} ms",
                            "Raise timeoutMs.",
                        )
                    except TaskplateError as exc:
                        error = exc
                    if attempts >= step.retry.attempts or error.code not in retry_on:
                        raise StepFailed(step, error, item)
                    await anyio.sleep(step.retry.backoff_ms * 2 ** (attempts - 1) / 1000)
            finally:
                if (
                    opened
                    and own_tab is not None
                    and session is not None
                    and own_tab in session.tabs
                ):
                    await session.close_tab(own_tab)
        except StepFailed as failure:
            reported = {
                "code": str(failure.error.code),
                "message": preview(failure.error.message, self.secrets),
            }
            self._record_action(
                step, item, StepStatus.FAILED, attempts, started, args, error=reported
            )
            raise
        self._record_action(
            step, item, StepStatus.SUCCEEDED, attempts, started, args, result=result
        )
        return result

    def _record_action(
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
    ) -> None:
        """One step execution recorded (previews masked) and counted."""
        self.record(
            StepRecord(
                next(self._seq),
                step.id,
                item,
                step.action,
                status,
                attempts,
                started,
                time.time(),
                args_preview=preview(args, self.secrets) if args is not None else None,
                result_preview=preview(result, self.secrets)
                if status is StepStatus.SUCCEEDED
                else None,
                error=error,
            )
        )
        self._done()

    # -- forEach: the sliding window -----------------------------------------------------------
    async def run_loop(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> Any:
        assert step.for_each is not None
        items = self._render(step, step.for_each, scope, item)
        if not isinstance(items, list):
            raise StepFailed(
                step,
                TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f"forEach of step {step.label} needs a list, got {type(items).__name__}",
                    "",
                ),
                item,
            )
        limits = self.template.limits
        if limits.max_items is not None and len(items) > limits.max_items:
            raise StepFailed(
                step,
                TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f"{len(items)} items are more than limits.maxItems ({limits.max_items})",
                    "Split the work into several runs.",
                ),
                item,
            )
        wanted = (
            self._render(step, step.concurrency, scope, item) if step.concurrency is not None else 1
        )
        window = max(1, min(int(wanted or 1), limits.max_concurrency or MAX_TABS_PER_SESSION))
        new_tabs = step.tab == Const("new")
        if new_tabs:
            session = await self.session()
            window = max(1, min(window, MAX_TABS_PER_SESSION - len(session.tabs)))
        tolerant = self.template.partial_success.allowed or step.on_error == "continue"
        self.progress.has_loop = True
        self.progress.items_total += len(items)
        self.progress.total_steps += len(items) * sum(s.action_count for s in step.steps)
        self.on_progress(self.progress)

        results: list[dict[str, Any] | None] = [None] * len(items)
        spare_tabs: list[str] = []  # tabs of finished items, reset and ready for the next
        loop_result: dict[str, Any] = {"items": [], "summary": {}}
        if step.id:
            scope["steps"][step.id] = loop_result
        slots = anyio.Semaphore(window)

        async def one(index: int, value: Any) -> None:
            try:
                results[index] = await self.run_item(
                    step, scope, value, index, tab_id, spare_tabs if new_tabs else None, tolerant
                )
            finally:
                slots.release()

        try:
            try:
                async with anyio.create_task_group() as tg:
                    for index, value in enumerate(items):
                        await slots.acquire()  # a finished item frees its slot at once
                        if self.cancel_requested:
                            slots.release()
                            break
                        tg.start_soon(one, index, value)
            except* StepFailed as group:
                raise group.exceptions[0] from None
            except* Canceled:
                raise Canceled() from None
        finally:
            self._fill(loop_result, results)
            if spare_tabs and self._session is not None:
                with anyio.CancelScope(shield=True):
                    for spare in spare_tabs:
                        if spare in self._session.tabs:
                            await self._session.close_tab(spare)
        if self.cancel_requested:
            raise Canceled()
        return loop_result

    @staticmethod
    def _fill(loop_result: dict[str, Any], results: list[dict[str, Any] | None]) -> None:
        done = [r for r in results if r is not None]
        loop_result["items"] = done
        loop_result["summary"] = {
            "total": len(results),
            "succeeded": sum(1 for r in done if r.get("success")),
            "failed": sum(1 for r in done if not r.get("success")),
            "skipped": len(results) - len(done),
        }

    async def _item_tab(self, spare_tabs: list[str]) -> str:
        """A clean tab for an item: a finished item's tab reset to about:blank, or a new one.

        `tab: new` promises a clean page, not a new process: the popups it opened are closed,
        what the tab keeps across navigations (sessionStorage, window.name) is cleared, and its
        dialog and status records too; its page is marked stale, so the next
        item's navigation replaces it, and any action that would read it first blanks it."""
        session = await self.session()
        await session.count_page()  # may retire the context: new tabs open in a fresh one
        while spare_tabs:
            tab_id = spare_tabs.pop()
            tab = session.tabs.get(tab_id)
            if tab is None or tab.crashed:
                continue
            if session.in_current_context(tab):
                return tab_id
            await session.close_tab(tab_id)  # of a retired context: let it drain
        return (await session.new_tab()).id

    async def _recycle(self, tab_id: str, spare_tabs: list[str]) -> None:
        session = self._session
        tab = session.tabs.get(tab_id) if session is not None else None
        if session is None or tab is None:
            return
        for other in [t for t in session.tabs.values() if t.opened_by == tab_id]:
            await session.close_tab(other.id)
        tab.items_served += 1
        if tab.crashed or tab.items_served >= TAB_RETIRES_AFTER:
            await session.close_tab(tab_id)  # the next item opens a fresh one
            return
        await tab.forget_page_state()
        if tab.items_served % COLLECT_EVERY == 0:
            await tab.collect_garbage()
        tab.dialogs.clear()
        tab.refused, tab.status, tab.net_error, tab.stale = None, None, None, True
        spare_tabs.append(tab_id)

    async def run_item(
        self,
        step: Step,
        outer: dict[str, Any],
        value: Any,
        index: int,
        tab_id: str | None,
        spare_tabs: list[str] | None,
        tolerant: bool,
    ) -> dict[str, Any] | None:
        scope = {**outer, "steps": dict(outer["steps"]), step.var: value, "index": index}
        executed = [0]
        _ITEM_STEPS.set(executed)
        item_tab = tab_id if spare_tabs is None else None
        try:
            if spare_tabs is not None:
                try:  # no tab for it (the browser went down, say): this item fails, not the run
                    item_tab = await self._item_tab(spare_tabs)
                except TaskplateError as error:
                    raise StepFailed(step, error, index) from None
            await self.run_block(step.steps, scope, item_tab, index)
            outcome: dict[str, Any] = {"success": True}
        except StepFailed as failure:
            self._done(max(0, _per_item(step) - executed[0]))  # the steps it never ran
            outcome = {
                "success": False,
                "error": {"code": str(failure.error.code), "message": failure.error.message},
            }
            self._count_item(False, tolerant)
            if not tolerant:
                raise
            return self._collect(step, scope, outcome)
        except Canceled:
            self._done(max(0, _per_item(step) - executed[0]))
            return None
        finally:
            if spare_tabs is not None and item_tab is not None:
                with anyio.CancelScope(shield=True):
                    await self._recycle(item_tab, spare_tabs)
        self._count_item(True, tolerant)
        return self._collect(step, scope, outcome)

    def _count_item(self, ok: bool, tolerant: bool) -> None:
        self.progress.items_done += 1
        if ok:
            self.progress.items_succeeded += 1
        else:
            self.progress.items_failed += 1
        if tolerant:
            self.loop_items.append(ok)
        self.on_progress(self.progress)

    def _collect(
        self, step: Step, scope: dict[str, Any], outcome: dict[str, Any]
    ) -> dict[str, Any]:
        if step.collect is None:
            return outcome
        try:
            collected = render(step.collect, scope)
        except ExpressionError:
            return outcome
        return (
            {**collected, **outcome}
            if isinstance(collected, dict)
            else {"value": collected, **outcome}
        )


def _per_item(loop: Step) -> int:
    return sum(s.action_count for s in loop.steps)
