"""One action step: the trust re-check, its confirmation, its tab, its attempts with backoff under
its timeout, the page when it failed, and its row. Knows actions only through `run_action`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import anyio.lowlevel

from taskplate.browser import Session, UrlPolicy
from taskplate.contract import ErrorCode, Level, StepStatus, TaskplateError, TrustLevel
from taskplate.dsl import ActionSpec, Const, Step
from taskplate.stdlib import ActionContext, Sampler, run_action

from ._checkpoints import Checkpoints
from ._confirm import Confirmation, Confirmer, default_question, needs_confirmation
from ._item_tabs import ItemTabs, item_tab
from ._provider_steps import action_of, timeout_error
from ._run_resources import RunResources
from ._step_failures import Canceled, CancelRequest, StepFailed, render_step
from ._step_log import StepLog, placed, preview

# (artifacts, session, tab id, label) -> artifact id of a failed step's screenshot
FailureShot = Callable[[Any, Session | None, str | None, str], Awaitable[str | None]]
# (moment: "before", "after" or "failed", step, item, its arguments, its context): a browser
# step's page read before it acts and when it succeeded or failed, before its tab closes
# (`dsl test --suggest`)
StepProbe = Callable[[str, Step, int | None, Any, ActionContext], Awaitable[None]]


class StepHealer(Protocol):
    """A run's healer (interpreter/heal/): the arguments a browser step runs again with when
    its selector lost its element, whether that run read what it missed, and what a step that
    succeeded unhealed must say (`warned`)."""

    def prepared(self, step: Step, args: Any) -> Any: ...

    async def succeeded(
        self, step: Step, item: int | None, args: Any, result: Any, ctx: ActionContext
    ) -> Any | None: ...

    async def failed(
        self, step: Step, args: Any, error: TaskplateError, ctx: ActionContext
    ) -> Any | None: ...

    def took(self, step: Step, again: Any, result: Any) -> bool: ...

    def at_once(self, step: Step, again: Any) -> Any: ...

    def warned(self, step: Step, result: Any) -> Any: ...


@dataclass
class _Call:
    """What one execution of an action step came to, for its row whatever the outcome."""

    started: float
    spec: ActionSpec | None = None
    args: Any = None
    attempts: int = 0
    tab: str | None = None  # the tab it ran in, when it named or opened one
    shot: str | None = None  # the failed page's screenshot
    confirmation: Confirmation | None = None


@dataclass
class ActionSteps:
    trust: TrustLevel
    catalog: Any  # built-in actions, providers' tools
    log: StepLog
    resources: RunResources
    tabs: ItemTabs
    cancel: CancelRequest
    artifacts: Any
    secrets: list[str]
    profiles: Any = None
    policy: UrlPolicy | None = None  # the run's URL policy, for actions that need no browser
    human: Any = None  # the run's hand-over desk (stdlib HumanDesk)
    sampler: Sampler | None = None  # the run's language model, for llm_extract
    confirmer: Confirmer | None = None  # asks before steps that need confirmation
    on_failure: FailureShot | None = None
    probe: StepProbe | None = None
    healer: StepHealer | None = None  # the run's (None: `dsl test`, which checks as written)
    checkpoints: Checkpoints | None = None  # an L1/L2 step's start marked before it acts

    async def run(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> Any:
        assert step.action is not None
        call = _Call(time.time())
        try:
            if not await self._prepare(step, scope, item, call):
                return None
            level = call.spec.level if call.spec is not None else Level.L0
            if self.checkpoints is not None and level is not Level.L0:
                await self.checkpoints.acting(placed(step))
            result = await self._attempts(step, scope, tab_id, item, call)
        except StepFailed as failure:
            await self._failed(step, item, tab_id, call, failure)
            raise
        self.log.note_secret(step, call.args, result)
        self.log.action(
            step,
            item,
            StepStatus.SUCCEEDED,
            call.attempts,
            call.started,
            call.args,
            result=result,
            call=self.log.call(step, call.args, result, call.tab),
            tab=self._tab_of(call),
            confirmation=call.confirmation.asked if call.confirmation is not None else None,
        )
        return result

    async def _prepare(
        self, step: Step, scope: dict[str, Any], item: int | None, call: _Call
    ) -> bool:
        """The action, allowed to this caller, its arguments, and the user's yes when it needs
        one; False when the user said to skip it (cancel: the run stops)."""
        spec = call.spec = action_of(self.catalog, step, item, StepFailed)
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
        if self.checkpoints is not None:  # in flight when a resumed run's process died
            self.checkpoints.refuse_in_flight(step, spec.level, placed(step), item)
        await anyio.lowlevel.checkpoint()  # the step's `when` had the loop before its `with`
        call.args = render_step(step, step.args, scope, item)
        self.log.note_secret(step, call.args, None)
        if not needs_confirmation(step, spec, self.trust):
            return True
        confirmation = call.confirmation = await self._confirm(step, spec, call.args, scope, item)
        if confirmation.error is not None:
            raise StepFailed(step, confirmation.error, item)
        if confirmation.outcome not in ("skip", "cancel"):
            return True
        self.log.action(
            step,
            item,
            StepStatus.SKIPPED,
            0,
            call.started,
            call.args,
            confirmation=confirmation.asked,
        )
        if confirmation.outcome == "cancel":
            self.cancel.requested = True
            raise Canceled()
        return False

    async def _attempts(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None, call: _Call
    ) -> Any:
        """The action run in its tab until it succeeds, or fails in a way not retried, or its
        attempts are spent; a tab it opened is closed after it."""
        spec = call.spec
        assert spec is not None
        timeout = (
            render_step(step, step.timeout_ms, scope, item) if step.timeout_ms is not None else None
        )
        try:  # no tab for it (the browser went down, say): this step fails, not the run
            session = (
                await self.resources.session() if spec.needs_browser else self.resources.opened
            )
            call.tab, opened = (
                await self._tab(step, scope, tab_id, item) if spec.needs_browser else (None, False)
            )
        except TaskplateError as no_tab:
            raise StepFailed(step, no_tab, item) from None

        async def browser() -> tuple[Session, str | None]:
            """A browser for an action that chose one as it ran (read_page), opened once."""
            nonlocal session, opened
            if session is None or call.tab is None:
                session = await self.resources.session()
                call.tab, opened = await self._tab(step, scope, tab_id, item)
            return session, call.tab

        ctx = ActionContext(
            session=session,
            tab_id=call.tab,
            trust=self.trust,
            artifacts=self.artifacts,
            profiles=self.profiles,
            web=self.resources.web(),
            url_policy=self.policy,
            human=self.human,
            sampler=self.sampler,
            secrets=self.secrets,
            browser=None if spec.needs_browser else browser,
            stopping=lambda: self.cancel.requested,
        )
        retry_on = step.retry.on if step.retry.on is not None else spec.retryable
        probe = self.probe if spec.needs_browser else None
        healer = self.healer if spec.needs_browser else None
        if healer is not None:
            call.args = healer.prepared(step, call.args)
        try:
            if probe is not None:
                await probe("before", step, item, call.args, ctx)
            while True:
                call.attempts += 1
                try:
                    with anyio.fail_after(timeout / 1000) if timeout else nullcontext():
                        result = await run_action(spec.name, ctx, call.args, self.catalog)
                except TimeoutError:
                    error = timeout_error(spec, step, timeout)
                except TaskplateError as exc:
                    error = exc
                else:
                    if probe is not None:
                        await probe("after", step, item, call.args, ctx)
                    if healer is not None:
                        again = await healer.succeeded(step, item, call.args, result, ctx)
                        if again is not None:
                            result = await self._healed(spec, step, ctx, call, again, result)
                        result = healer.warned(step, result)
                    return result
                spent = call.attempts >= step.retry.attempts or error.code not in retry_on
                if spent and healer is not None and not self.cancel.requested:
                    again = await healer.failed(step, call.args, error, ctx)
                    if again is not None:
                        healed = await self._healed(spec, step, ctx, call, again, None)
                        if healed is not None:
                            return healed
                if spent or self.cancel.requested:  # a canceled run starts no attempt
                    raise StepFailed(step, error, item)
                await anyio.sleep(step.retry.backoff_ms * 2 ** (call.attempts - 1) / 1000)
        except StepFailed:
            if probe is not None:
                await probe("failed", step, item, call.args, ctx)
            if (spec.needs_browser or call.tab is not None) and self.on_failure is not None:
                call.shot = await self.on_failure(
                    self.artifacts, session, call.tab, _shot_label(step, item)
                )
            raise
        finally:
            if opened and call.tab is not None and session is not None and call.tab in session.tabs:
                await session.close_tab(call.tab)

    async def _healed(
        self, spec: ActionSpec, step: Step, ctx: ActionContext, call: _Call, again: Any, was: Any
    ) -> Any:
        """The step run once more with its relocated selectors: its result when it read what
        it missed (the healed arguments are the step's now), else `was`."""
        assert self.healer is not None
        try:
            result = await run_action(
                spec.name, ctx, self.healer.at_once(step, again), self.catalog
            )
        except TaskplateError:
            return was
        if not self.healer.took(step, again, result):
            return was
        call.args = again
        return result

    async def _failed(
        self, step: Step, item: int | None, tab_id: str | None, call: _Call, failure: StepFailed
    ) -> None:
        if call.shot is None and call.tab is None:  # a check failed, or before the step had a tab
            call.shot = await self._page_of_failure(step, item, tab_id)
        reported = {
            "code": str(failure.error.code),
            "message": preview(failure.error.message, self.secrets),
        }
        self.log.action(
            step,
            item,
            StepStatus.FAILED,
            call.attempts,
            call.started,
            call.args,
            error=reported,
            tab=self._tab_of(call),
            screenshot=call.shot,
            confirmation=call.confirmation.asked if call.confirmation is not None else None,
        )

    async def _tab(
        self, step: Step, scope: dict[str, Any], tab_id: str | None, item: int | None
    ) -> tuple[str | None, bool]:
        """The tab the step runs in, and whether the step opened it (and so closes it)."""
        if step.tab is None and tab_id is None and (lazy := item_tab()) is not None:
            return await self.tabs.open(lazy), False
        if step.tab is None or step.tab == Const("main"):
            return (tab_id if step.tab is None else None), False
        if step.tab == Const("new"):
            session = await self.resources.session()
            return (await session.new_tab()).id, True
        return str(render_step(step, step.tab, scope, item)), False

    async def _confirm(
        self, step: Step, spec: Any, args: Any, scope: dict[str, Any], item: int | None
    ) -> Confirmation:
        """The user's answer before the step (a question of the template, or the default one
        for an action that requires confirmation)."""
        asked = (
            str(render_step(step, step.confirm, scope, item)) if step.confirm is not None else None
        )
        if asked:
            for secret in self.secrets:  # a question never carries a secret to the client
                asked = asked.replace(secret, "***")
        question = asked or default_question(spec, preview(args, self.secrets))
        return await (self.confirmer or Confirmer(self.trust)).confirm(step, spec, question)

    async def _page_of_failure(
        self, step: Step, item: int | None, tab_id: str | None
    ) -> str | None:
        """A PNG of the page a failed step's item (or the run) works in, for a step that had no
        tab of its own: an `assert` after a page answered HTTP 500 shows that page. None when
        no browser was started, the tab is gone or shows nothing yet."""
        session = self.resources.opened
        if self.on_failure is None or session is None:
            return None
        lazy = item_tab()
        tab_ref = lazy.id if lazy is not None else (tab_id or session.main_tab)
        tab = session.tabs.get(tab_ref or "")
        if tab is None or tab.page.url == "about:blank":
            return None
        return await self.on_failure(self.artifacts, session, tab.id, _shot_label(step, item))

    def _tab_of(self, call: _Call) -> str | None:
        """The tab a browser step ran in, for its row (the main tab unless it named one)."""
        session = self.resources.opened
        if call.spec is None or session is None:
            return None
        if not call.spec.needs_browser:
            return call.tab  # the tab it opened if it chose a browser
        return call.tab or session.main_tab


def _shot_label(step: Step, item: int | None) -> str:
    """How a failure screenshot is named: `failure-open-3.png` (step, item)."""
    return f"{step.id or step.action or 'step'}{'' if item is None else f'-{item}'}"
