"""Runs a step graph: sequential or `needs`-ordered siblings, `when`, retries with backoff,
per-step timeouts, trust re-checks, and `forEach` as a true sliding window of items.

Knows actions only through `run_action`; records every step execution through a callback.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.browser import MAX_TABS_PER_SESSION, Session, UrlPolicy
from taskplate.contract import ErrorCode, StepStatus, TaskplateError, TrustLevel
from taskplate.dsl import Const, ExpressionError, Step, Template, render, truthy
from taskplate.stdlib import REGISTRY, ActionContext, Sampler, run_action

from ._confirm import Confirmation, Confirmer, default_question, needs_confirmation
from ._provider_steps import action_of, timeout_error
from ._recording import marked, typed_secret

if TYPE_CHECKING:
    from taskplate.stdlib import WebClient, WebConfig

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


@dataclass
class _ItemTab:
    """A `tab: new` item's tab, opened when its first browser step needs it: an item read over
    plain HTTP (`fetch`) opens no tab, and a run that never needs one never starts Chromium."""

    spare: list[str]
    id: str | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)


_ITEM_TAB: ContextVar[_ItemTab | None] = ContextVar("taskplate_item_tab", default=None)


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
        )

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
    # a succeeded action's call kept whole for recorded templates (secrets marked, never clear)
    call: dict[str, Any] | None = None
    tab_id: str | None = None  # the tab a browser step ran in
    screenshot_artifact_id: str | None = None  # the page when a browser step failed
    provider: str | None = None  # builtin, or the MCP server that served the action
    capability_level: str | None = None
    confirmation: dict[str, Any] | None = None  # the question asked before the step, its answer


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
    # (artifacts, session, tab id, label) -> artifact id of a failed step's screenshot
    on_failure: Callable[[Any, Session | None, str | None, str], Awaitable[str | None]] | None = (
        None
    )
    policy: UrlPolicy | None = None  # the run's URL policy, for actions that need no browser
    web_config: WebConfig | None = None
    catalog: Any = field(default_factory=lambda: REGISTRY)  # built-in actions, providers' tools
    confirmer: Confirmer | None = None  # asks before steps that need confirmation
    human: Any = None  # the run's hand-over desk (stdlib HumanDesk)
    sampler: Sampler | None = None  # the run's language model, for llm_extract
    cancel_requested: bool = False
    progress: Progress = field(default_factory=Progress)
    loop_items: list[bool] = field(default_factory=list)  # success of every tolerant-loop item
    _seq: itertools.count[int] = field(default_factory=itertools.count)
    _session: Session | None = None
    _web: WebClient | None = None
    _opening: anyio.Lock = field(default_factory=anyio.Lock)

    def web(self) -> WebClient:
        """The run's HTTP client (robots.txt, per-host limits), made on first use."""
        if self._web is None:
            from taskplate.stdlib import WebClient

            self._web = WebClient(self.web_config)
        return self._web

    async def aclose(self) -> None:
        """Closes what the execution opened itself (its HTTP client; tabs close per item)."""
        if self._web is not None:
            web, self._web = self._web, None
            await web.aclose()

    async def session(self) -> Session:
        """The run's session, opened once: items whose tabs open lazily ask for it at once."""
        async with self._opening:
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
        if step.tab is None and tab_id is None and (lazy := _ITEM_TAB.get()) is not None:
            async with lazy.lock:
                if lazy.id is None:
                    lazy.id = await self._item_tab(lazy.spare)
            return lazy.id, False
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
        started, attempts = time.time(), 0
        args: Any = None
        own_tab: str | None = None
        shot: str | None = None
        confirmation: Confirmation | None = None
        try:
            spec = action_of(self.catalog, step, item, StepFailed)
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
            self._note_secret(step, args, None)
            if needs_confirmation(step, spec, self.trust):
                confirmation = await self._confirm(step, spec, args, scope, item)
                if confirmation.error is not None:
                    raise StepFailed(step, confirmation.error, item)
                if confirmation.outcome in ("skip", "cancel"):
                    self._record_action(
                        step,
                        item,
                        StepStatus.SKIPPED,
                        0,
                        started,
                        args,
                        confirmation=confirmation.record,
                    )
                    if confirmation.outcome == "cancel":
                        self.cancel_requested = True
                        raise Canceled()
                    return None
            timeout = (
                self._render(step, step.timeout_ms, scope, item)
                if step.timeout_ms is not None
                else None
            )
            try:  # no tab for it (the browser went down, say): this step fails, not the run
                session = await self.session() if spec.needs_browser else self._session
                own_tab, opened = (
                    await self._tab(step, scope, tab_id, item)
                    if spec.needs_browser
                    else (None, False)
                )
            except TaskplateError as no_tab:
                raise StepFailed(step, no_tab, item) from None
            ctx = ActionContext(
                session=session,
                tab_id=own_tab,
                trust=self.trust,
                artifacts=self.artifacts,
                profiles=self.profiles,
                web=self.web(),
                url_policy=self.policy,
                human=self.human,
                sampler=self.sampler,
                secrets=self.secrets,
            )
            retry_on = step.retry.on if step.retry.on is not None else spec.retryable
            try:
                while True:
                    attempts += 1
                    try:
                        with anyio.fail_after(timeout / 1000) if timeout else nullcontext():
                            result = await run_action(spec.name, ctx, args, self.catalog)
                        break
                    except TimeoutError:
                        error = timeout_error(spec, step, timeout)
                    except TaskplateError as exc:
                        error = exc
                    if attempts >= step.retry.attempts or error.code not in retry_on:
                        raise StepFailed(step, error, item)
                    await anyio.sleep(step.retry.backoff_ms * 2 ** (attempts - 1) / 1000)
            except StepFailed:
                if spec.needs_browser and self.on_failure is not None:  # before the tab closes
                    shot = await self.on_failure(
                        self.artifacts, session, own_tab, _shot_label(step, item)
                    )
                raise
            finally:
                if (
                    opened
                    and own_tab is not None
                    and session is not None
                    and own_tab in session.tabs
                ):
                    await session.close_tab(own_tab)
        except StepFailed as failure:
            if shot is None and own_tab is None:  # a check failed, or before the step had a tab
                shot = await self._page_of_failure(step, item, tab_id)
            reported = {
                "code": str(failure.error.code),
                "message": preview(failure.error.message, self.secrets),
            }
            tab = self._tab_of(spec.needs_browser, own_tab)
            self._record_action(
                step,
                item,
                StepStatus.FAILED,
                attempts,
                started,
                args,
                error=reported,
                tab=tab,
                screenshot=shot,
                confirmation=confirmation.record if confirmation is not None else None,
            )
            raise
        self._note_secret(step, args, result)
        self._record_action(
            step,
            item,
            StepStatus.SUCCEEDED,
            attempts,
            started,
            args,
            result=result,
            call=self._call(step, args, result, own_tab),
            tab=self._tab_of(spec.needs_browser, own_tab),
            confirmation=confirmation.record if confirmation is not None else None,
        )
        return result

    async def _confirm(
        self, step: Step, spec: Any, args: Any, scope: dict[str, Any], item: int | None
    ) -> Confirmation:
        """The user's answer before the step (a question of the template, or the default one
        for an action that requires confirmation)."""
        asked = (
            str(self._render(step, step.confirm, scope, item)) if step.confirm is not None else None
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
        if self.on_failure is None or self._session is None:
            return None
        lazy = _ITEM_TAB.get()
        tab_ref = lazy.id if lazy is not None else (tab_id or self._session.main_tab)
        tab = self._session.tabs.get(tab_ref or "")
        if tab is None or tab.page.url == "about:blank":
            return None
        return await self.on_failure(self.artifacts, self._session, tab.id, _shot_label(step, item))

    def _tab_of(self, browser: bool, tab_id: str | None) -> str | None:
        if not browser or self._session is None:
            return None
        return tab_id or self._session.main_tab

    def _note_secret(self, step: Step, args: Any, result: Any) -> None:
        """A value typed as a secret (a password field, `secret: true`) is one of the run's
        secrets from now on: masked like a secret input wherever the run is recorded."""
        secret = typed_secret(step.action, args, result)
        if secret is not None and secret not in self.secrets:
            self.secrets.append(secret)

    def _call(self, step: Step, args: Any, result: Any, tab_id: str | None) -> dict[str, Any]:
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
        call: dict[str, Any] | None = None,
        tab: str | None = None,
        screenshot: str | None = None,
        confirmation: dict[str, Any] | None = None,
    ) -> None:
        """One step execution recorded (previews masked) and counted."""
        spec = self.catalog.get(step.action) if step.action else None
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
                call=call,
                tab_id=tab,
                screenshot_artifact_id=screenshot,
                provider=spec.provider if spec is not None else None,
                capability_level=str(spec.level) if spec is not None else None,
                confirmation=confirmation,
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
        growing = step.enqueue is not None
        if not growing and limits.max_items is not None and len(items) > limits.max_items:
            raise StepFailed(
                step,
                TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f"{len(items)} items are more than limits.maxItems ({limits.max_items})",
                    "Split the work into several runs.",
                ),
                item,
            )
        bound = self._bound(step, scope, item) if growing else len(items)
        wanted = (
            self._render(step, step.concurrency, scope, item) if step.concurrency is not None else 1
        )
        window = max(1, min(int(wanted or 1), limits.max_concurrency or MAX_TABS_PER_SESSION))
        # `tab: new`, and by default a loop whose items may overlap: a tab per item, never one
        # page that items running at once navigate from under each other (docs/authoring.md).
        new_tabs = step.item_tabs(limits.max_concurrency)
        if new_tabs:  # item tabs open lazily; the main tab and the tabs open now stay within caps
            open_now = len(self._session.tabs) if self._session is not None else 1
            window = max(1, min(window, MAX_TABS_PER_SESSION - open_now))
        tolerant = self.template.partial_success.allowed or step.on_error == "continue"
        self.progress.has_loop = True
        self.on_progress(self.progress)

        results: list[dict[str, Any] | None] = []
        queue: deque[tuple[int, Any, int]] = deque()  # (index, item, depth), FIFO: breadth first
        seen: set[str] = set()
        dropped = [0]
        per_item = _per_item(step)

        def admit(values: list[Any], depth: int) -> None:
            """Items join the loop: each once by its key, until the bound (the rest dropped)."""
            for value in values:
                if growing:
                    key = self._key(step, scope, value)
                    if key in seen:
                        continue
                    if len(results) >= bound:
                        dropped[0] += 1
                        continue
                    seen.add(key)
                queue.append((len(results), value, depth))
                results.append(None)
                self.progress.items_total += 1
                self.progress.total_steps += per_item
            self.on_progress(self.progress)

        admit(items, 0)
        spare_tabs: list[str] = []  # tabs of finished items, reset and ready for the next
        loop_result: dict[str, Any] = {"items": [], "summary": {}}
        if step.id:
            scope["steps"][step.id] = loop_result
        slots = anyio.Semaphore(window)
        in_flight = [0]
        finished = [anyio.Event()]  # set whenever an item finishes (and may have grown the queue)

        async def one(index: int, value: Any, depth: int) -> None:
            try:
                results[index] = await self.run_item(
                    step,
                    scope,
                    value,
                    index,
                    tab_id,
                    spare_tabs if new_tabs else None,
                    tolerant,
                    depth=depth,
                    grow=(lambda added: admit(added, depth + 1)) if growing else None,
                )
            finally:
                in_flight[0] -= 1
                slots.release()
                finished[0].set()

        try:
            try:
                async with anyio.create_task_group() as tg:
                    while True:
                        await slots.acquire()  # a finished item frees its slot at once
                        while not queue and in_flight[0] and not self.cancel_requested:
                            finished[0] = anyio.Event()
                            await finished[0].wait()
                        if self.cancel_requested or not queue:
                            slots.release()
                            break
                        index, value, depth = queue.popleft()
                        in_flight[0] += 1
                        tg.start_soon(one, index, value, depth)
            except* StepFailed as group:
                raise group.exceptions[0] from None
            except* Canceled:
                raise Canceled() from None
        finally:
            self._fill(loop_result, results)
            if growing:
                loop_result["summary"]["dropped"] = dropped[0]
            if spare_tabs and self._session is not None:
                with anyio.CancelScope(shield=True):
                    for spare in spare_tabs:
                        if spare in self._session.tabs:
                            await self._session.close_tab(spare)
        if self.cancel_requested:
            raise Canceled()
        return loop_result

    def _bound(self, step: Step, scope: dict[str, Any], item: int | None) -> int:
        """A growing loop's maxItems, within the template's limits.maxItems."""
        most = self._render(step, step.max_items, scope, item) if step.max_items else None
        if isinstance(most, bool) or not isinstance(most, int | float) or most < 1:
            raise StepFailed(
                step,
                TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f"maxItems of step {step.label} must be a whole number of at least 1, got {most!r}",
                    "Give the growing forEach a bound (maxItems).",
                ),
                item,
            )
        limit = self.template.limits.max_items
        return min(int(most), limit) if limit is not None else int(most)

    def _key(self, step: Step, scope: dict[str, Any], value: Any) -> str:
        """An item's dedup key: `uniqueBy` with the item named, else the item itself."""
        key = value
        if step.unique_by is not None:
            try:
                key = render(step.unique_by, {**scope, step.var: value})
            except ExpressionError:
                key = value
        return key if isinstance(key, str) else json.dumps(key, sort_keys=True, default=str)

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
        executed = [0]
        _ITEM_STEPS.set(executed)
        lazy = _ItemTab(spare_tabs) if spare_tabs is not None else None
        if lazy is not None:
            _ITEM_TAB.set(lazy)
        try:
            await self.run_block(step.steps, scope, None if lazy else tab_id, index)
            added = self._enqueued(step, scope, index) if grow is not None else []
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
            if lazy is not None and lazy.id is not None:
                with anyio.CancelScope(shield=True):
                    await self._recycle(lazy.id, lazy.spare)
        if grow is not None:
            grow(added)
        self._count_item(True, tolerant)
        return self._collect(step, scope, outcome)

    def _enqueued(self, step: Step, scope: dict[str, Any], index: int) -> list[Any]:
        """What a finished item adds to its growing loop; a wrong value fails the item."""
        assert step.enqueue is not None
        added = self._render(step, step.enqueue, scope, index)
        if added is None:
            return []
        if not isinstance(added, list):
            raise StepFailed(
                step,
                TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f"enqueue of step {step.label} needs a list, got {type(added).__name__}",
                    "Enqueue a list of items (an empty list adds none).",
                ),
                index,
            )
        return added

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


def _shot_label(step: Step, item: int | None) -> str:
    """How a failure screenshot is named: `failure-open-3.png` (step, item)."""
    return f"{step.id or step.action or 'step'}{'' if item is None else f'-{item}'}"


def _per_item(loop: Step) -> int:
    return sum(s.action_count for s in loop.steps)
