"""Runs a step graph: each step as its kind says (`when`, a group, a loop, an action), siblings
in order or by `needs` (`_needs`), an action's attempts (`_action_steps`), `forEach` as a sliding
window of items (`_sliding_window`, `_loop_items`, `_item_tabs`), every execution recorded
(`_step_log`). `Execution` only wires these parts and dispatches between them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio.lowlevel

from taskplate.browser import Network, Session, UrlPolicy
from taskplate.contract import TrustLevel
from taskplate.dsl import Step, Template, truthy
from taskplate.stdlib import REGISTRY, Sampler

from ._action_steps import ActionSteps, FailureShot, StepProbe
from ._checkpoints import Checkpoints
from ._confirm import Confirmer
from ._item_tabs import ItemTabs
from ._needs import run_siblings
from ._run_resources import RunResources
from ._sliding_window import SlidingWindow
from ._step_failures import Canceled, CancelRequest, Drained, StepFailed, render_step
from ._step_log import Progress, StepLog, StepRow, outermost, placed, preview

if TYPE_CHECKING:
    from taskplate.stdlib import CookieSource, WebConfig

__all__ = ["Canceled", "Drained", "Execution", "Progress", "StepFailed", "StepRow", "preview"]


@dataclass
class Execution:
    """One run's executor; owns nothing it did not open (item tabs are closed per item)."""

    template: Template
    trust: TrustLevel
    session_factory: Callable[[], Awaitable[Session]]
    artifacts: Any
    log_row: Callable[[StepRow], None]
    on_progress: Callable[[Progress], None]
    secrets: list[str] = field(default_factory=list)
    profiles: Any = None
    on_failure: FailureShot | None = None  # a failed browser step's screenshot
    probe: StepProbe | None = None  # reads browser steps' pages (`dsl test --suggest`)
    policy: UrlPolicy | None = None  # the run's URL policy, for actions that need no browser
    web_config: WebConfig | None = None
    web_cookies: CookieSource | None = None  # what plain HTTP starts from (the run's profile)
    network: Network | None = None  # the run's proxy, identity and host pace (both engines)
    catalog: Any = field(default_factory=lambda: REGISTRY)  # built-in actions, providers' tools
    confirmer: Confirmer | None = None  # asks before steps that need confirmation
    human: Any = None  # the run's hand-over desk (stdlib HumanDesk)
    sampler: Sampler | None = None  # the run's language model, for llm_extract
    cancel: CancelRequest = field(default_factory=CancelRequest)
    loop_items: list[bool] = field(default_factory=list)  # success of every tolerant-loop item
    # what the run finished, kept as it finishes; a resumed run's also what it found
    checkpoints: Checkpoints | None = None

    def __post_init__(self) -> None:
        self.log = StepLog(self.log_row, self.on_progress, self.catalog, self.secrets)
        if self.policy is None:  # one for its steps and its HTTP client, so a host resolves once
            self.policy = UrlPolicy(self.trust)
        self.resources = RunResources(
            self.session_factory, self.web_config, self.policy, self.web_cookies, self.network
        )
        tabs = ItemTabs(self.resources)
        self.actions = ActionSteps(
            self.trust,
            self.catalog,
            self.log,
            self.resources,
            tabs,
            self.cancel,
            self.artifacts,
            self.secrets,
            profiles=self.profiles,
            policy=self.policy,
            human=self.human,
            sampler=self.sampler,
            confirmer=self.confirmer,
            on_failure=self.on_failure,
            probe=self.probe,
            checkpoints=self.checkpoints,
        )
        self.loops = SlidingWindow(
            self.template,
            self.log,
            self.resources,
            tabs,
            self.cancel,
            self.run_block,
            self.loop_items,
            self.checkpoints,
        )

    @property
    def progress(self) -> Progress:
        return self.log.progress

    @property
    def cancel_requested(self) -> bool:
        return self.cancel.requested

    @cancel_requested.setter
    def cancel_requested(self, value: bool) -> None:
        self.cancel.requested = value

    async def aclose(self) -> None:
        """Closes what the execution opened itself (its HTTP client; tabs close per item)."""
        await self.resources.aclose()

    def count_top_level(self) -> None:
        """Top-level action steps; loops add their items' steps when they start."""
        self.progress.total_steps = sum(s.action_count for s in self.template.steps)
        self.log.changed()

    async def run_block(
        self, steps: list[Step], scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> None:
        async def one(step: Step) -> None:
            await self.run_step(step, scope, tab_id, item)

        await run_siblings(steps, one)

    async def run_step(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> None:
        """The step, or in a resumed run outside any item its output kept before; a step that
        finishes outside any item is checkpointed with its whole output."""
        kept = self.checkpoints
        if kept is not None and kept.resuming:
            if step.is_group and step.on_resume == "restart":
                # run again whole, finished or not: what it built (a login) is not in the
                # resumed run's new session
                kept.restart(step, placed(step))
            done, value = kept.step(step) if item is None else (False, None)
            if done:
                if step.action_count:
                    self.log.done(step.action_count)
                if step.id:
                    scope["steps"][step.id] = value
                return
        await self._run_step(step, scope, tab_id, item)
        # a loop's items are kept one by one as they finish: its whole output again would
        # write every item twice (a resumed loop is rebuilt from them, running none)
        if kept is not None and item is None and not step.is_loop:
            await kept.keep_step(step, scope["steps"].get(step.id) if step.id else None)

    async def _run_step(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> None:
        self.cancel.check()
        if self.cancel.draining and outermost():  # an item's steps go on: the item finishes
            raise Drained()
        # Expressions run on the event loop, each value within its budget (tens of ms at most):
        # a step gives the loop back before it evaluates, so steps never add up to a long hold.
        await anyio.lowlevel.checkpoint()
        if step.when is not None and not truthy(render_step(step, step.when, scope, item)):
            self.log.skipped(step, item)
            if step.id:
                scope["steps"][step.id] = None
            return
        if step.is_group:
            await self.run_block(step.steps, scope, tab_id, item)
            result = None
        elif step.is_loop:
            result = await self.loops.run(step, scope, tab_id, item)
        else:
            try:
                result = await self.actions.run(step, scope, tab_id, item)
            except StepFailed:
                if step.on_error != "continue":
                    raise
                result = None  # a tolerated failure reads as a missing result
        if step.id:
            scope["steps"][step.id] = result
