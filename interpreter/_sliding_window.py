"""`forEach` as a true sliding window: up to `concurrency` items at once, the next item started
as soon as one finishes, each in its own tab when items may overlap, a failure tolerated or not.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any

import anyio

from taskplate.browser import MAX_TABS_PER_SESSION
from taskplate.dsl import ExpressionError, Step, Template, render

from ._checkpoints import Checkpoints
from ._item_tabs import ItemTabs, enter_item_tab
from ._loop_items import LoopItems, bound_of, enqueued, per_item
from ._run_resources import RunResources
from ._step_failures import Canceled, CancelRequest, Drained, StepFailed, invalid, render_step
from ._step_log import StepLog, count_item_steps, in_item, outermost

# (steps, scope, tab id, item): the coordinator's way to run an item's steps
RunBlock = Callable[[list[Step], dict[str, Any], str | None, int | None], Awaitable[None]]


@dataclass
class SlidingWindow:
    template: Template
    log: StepLog
    resources: RunResources
    tabs: ItemTabs
    cancel: CancelRequest
    run_block: RunBlock
    loop_items: list[bool]  # success of every tolerant-loop item
    checkpoints: Checkpoints | None = None  # outermost loops' items kept; a resumed run's found

    async def run(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> Any:
        assert step.for_each is not None
        given = render_step(step, step.for_each, scope, item)
        if not isinstance(given, list):
            raise invalid(
                step,
                f"forEach of step {step.label} needs a list, got {type(given).__name__}",
                "",
                item,
            )
        limits = self.template.limits
        growing = step.enqueue is not None
        if not growing and limits.max_items is not None and len(given) > limits.max_items:
            raise invalid(
                step,
                f"{len(given)} items are more than limits.maxItems ({limits.max_items})",
                "Split the work into several runs.",
                item,
            )
        bound = bound_of(step, scope, item, limits.max_items) if growing else None
        window = self._window(step, scope, item)
        tolerant = self.template.partial_success.allowed or step.on_error == "continue"
        if outermost():  # an inner loop's rows are steps of the outer items, not items
            self.log.progress.loop_started(growing)
        self.log.changed()

        items = LoopItems(step, scope, self.log, bound)
        items.admit(given, 0)
        kept = self.checkpoints if item is None else None  # an outermost loop's items only
        if kept is not None and kept.resuming:
            self._resume_items(step, items, kept, tolerant)
        # `tab: new`, and by default a loop whose items may overlap: a tab per item, never one
        # page that items running at once navigate from under each other (docs/authoring.md).
        spare_tabs: list[str] | None = [] if step.item_tabs(limits.max_concurrency) else None
        loop_result: dict[str, Any] = {"items": [], "summary": {}}
        if step.id:
            scope["steps"][step.id] = loop_result
        slots = anyio.Semaphore(window)
        in_flight = [0]
        finished = [anyio.Event()]  # set whenever an item finishes (and may have grown the queue)

        async def one(index: int, value: Any, depth: int) -> None:
            added: list[Any] = []

            def grow(more: list[Any]) -> None:
                added.extend(more)
                items.admit(more, depth + 1)

            try:
                result = items.results[index] = await self.run_item(
                    step,
                    scope,
                    value,
                    index,
                    tab_id,
                    spare_tabs,
                    tolerant,
                    depth=depth,
                    grow=grow if growing else None,
                )
                if kept is not None and result is not None:
                    await kept.keep_item(step, index, result, added)
            finally:
                in_flight[0] -= 1
                slots.release()
                finished[0].set()

        # the run's server drains: this loop's items in flight finish, no other starts (an
        # inner loop's items are steps of an outer item, which finishes whole)
        draining = outermost()
        try:
            try:
                async with anyio.create_task_group() as tg:
                    while True:
                        await slots.acquire()  # a finished item frees its slot at once
                        while not items.waiting and in_flight[0] and not self.cancel.requested:
                            finished[0] = anyio.Event()
                            await finished[0].wait()
                        stop = self.cancel.requested or (draining and self.cancel.draining)
                        if stop or not items.waiting:
                            slots.release()
                            break
                        index, value, depth = items.waiting.popleft()
                        in_flight[0] += 1
                        tg.start_soon(one, index, value, depth)
            except* StepFailed as group:
                raise group.exceptions[0] from None
            except* Canceled:
                raise Canceled() from None
            except* Drained:
                raise Drained() from None
        finally:
            items.fill(loop_result)
            if spare_tabs:
                await self.tabs.close_spares(spare_tabs)
        self.cancel.check()
        if draining and self.cancel.draining and None in items.results:
            raise Drained()  # the loop is not done: it goes on elsewhere
        return loop_result

    def _resume_items(
        self, step: Step, items: LoopItems, kept: Checkpoints, tolerant: bool
    ) -> None:
        """A resumed run's loop: the items it finished before keep their results and are not
        run again; a growing loop's items are admitted again as they were, in the order they
        finished, so each keeps its index."""
        depth_of = {index: depth for index, _, depth in items.waiting}
        finished: set[int] = set()
        for index, kept_item in kept.items(step):
            if index >= len(items.results) or index in finished:
                break  # not the loop it was (its items differ): the rest run again
            result = kept_item.get("result")
            items.results[index] = result
            finished.add(index)
            if step.enqueue is not None:
                known = len(items.waiting)
                items.admit(kept_item.get("added") or [], depth_of.get(index, 0) + 1)
                depth_of.update({i: d for i, _, d in islice(items.waiting, known, None)})
            self.log.done(per_item(step))
            self._count_item(bool(isinstance(result, dict) and result.get("success")), tolerant)
        items.waiting = deque(w for w in items.waiting if w[0] not in finished)

    def _window(self, step: Step, scope: dict[str, Any], item: int | None) -> int:
        """How many items run at once: the step's concurrency within the template's limits and
        the tabs a session may have (item tabs open lazily, beside the tabs open now)."""
        limits = self.template.limits
        wanted = (
            render_step(step, step.concurrency, scope, item) if step.concurrency is not None else 1
        )
        window = max(1, min(int(wanted or 1), limits.max_concurrency or MAX_TABS_PER_SESSION))
        if step.item_tabs(limits.max_concurrency):
            session = self.resources.opened
            open_now = len(session.tabs) if session is not None else 1
            window = max(1, min(window, MAX_TABS_PER_SESSION - open_now))
        return window

    async def run_item(
        self,
        step: Step,
        outer: dict[str, Any],
        value: Any,
        index: int,
        tab_id: str | None,
        spare_tabs: list[str] | None,
        tolerant: bool,
        *,
        depth: int = 0,
        grow: Callable[[list[Any]], None] | None = None,
    ) -> dict[str, Any] | None:
        scope = {
            **outer,
            "steps": dict(outer["steps"]),
            step.var: value,
            "index": index,
            "depth": depth,
        }
        executed = count_item_steps()
        lazy = enter_item_tab(spare_tabs) if spare_tabs is not None else None
        ended = False  # the item's steps ended by themselves, not aborted (force, a timeout)
        try:
            with in_item(step, index):
                await self.run_block(step.steps, scope, None if lazy else tab_id, index)
            ended = True
            added = enqueued(step, scope, index) if grow is not None else []
            outcome: dict[str, Any] = {"success": True}
        except StepFailed as failure:
            ended = True
            self.log.done(max(0, per_item(step) - executed[0]))  # the steps it never ran
            outcome = {
                "success": False,
                "error": {"code": str(failure.error.code), "message": failure.message},
            }
            self._count_item(False, tolerant)
            if not tolerant:
                raise
            return _collect(step, scope, outcome)
        except Canceled:
            ended = True
            self.log.done(max(0, per_item(step) - executed[0]))
            return None
        finally:
            if lazy is not None and lazy.id is not None:
                with anyio.CancelScope(shield=True):
                    await (self.tabs.recycle(lazy) if ended else self.tabs.drop(lazy))
        if grow is not None:
            grow(added)
        self._count_item(True, tolerant)
        return _collect(step, scope, outcome)

    def _count_item(self, ok: bool, tolerant: bool) -> None:
        progress = self.log.progress
        if outermost():
            progress.items_done += 1
            if ok:
                progress.items_succeeded += 1
            else:
                progress.items_failed += 1
        if tolerant:
            self.loop_items.append(ok)
        self.log.changed()


def _collect(step: Step, scope: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """An item's result: what the loop's `collect` says of it, with its outcome."""
    if step.collect is None:
        return outcome
    try:
        collected = render(step.collect, scope)
    except ExpressionError:
        return outcome
    return (
        {**collected, **outcome} if isinstance(collected, dict) else {"value": collected, **outcome}
    )
