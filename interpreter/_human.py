"""Hand-over to a person: a run waits in `waiting_for_human` (in the run store, so every
process sees it) until the page shows what the template waits for, `resume_task_run`, or its
timeout. Tells the person where to act (for a local caller with a display: a headed window of
the session, copied back when done); never drives the page itself."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import anyio

from taskplate.browser import HeadedWindow, can_show_window
from taskplate.contract import ErrorCode, RunStatus, TaskplateError, TrustLevel

from ._confirm import Answer, Asker, CannotAsk
from .store import STORE_WRITE_S, Store

POLL_S = 0.25  # a URL test or one element's visibility: cheap enough to ask four times a second


def _iso(timestamp: float) -> str:
    return (
        datetime.fromtimestamp(timestamp, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


@dataclass
class RunDesk:
    """One run's hand-over desk (stdlib's `HumanDesk`)."""

    store: Store
    run_id: str
    trust: TrustLevel
    asker: Asker | None
    canceled: Callable[[], bool]  # the run was asked to stop
    cancel_run: Callable[[], None]  # stops the run now (its forced scope)
    secrets: list[str] = field(default_factory=list)  # the run's: never shown to anyone
    # the window's proxy and identity: the run's (Network.window_options)
    window_options: dict[str, Any] = field(default_factory=dict)
    poll_s: float = POLL_S
    _answers: list[Any] = field(default_factory=list)
    window: HeadedWindow | None = None  # the hand-over's headed window while it is open
    window_error: str | None = None  # why the last window could not open
    # One hand-over at a time: the run has one `waitingFor`, one resume flag and one window,
    # so items handing over at once take turns (each resumed on its own, never by another's).
    _turn: anyio.Lock = field(default_factory=anyio.Lock)

    async def hand_over(
        self,
        reason: str,
        url: str,
        screenshot_artifact_id: str | None,
        done: Callable[[], Awaitable[bool]],
        timeout_ms: int,
        page: Any = None,
        condition: Callable[[Any], Callable[[], Awaitable[bool]]] | None = None,
    ) -> str:
        reason, url = self._masked(reason), self._masked(url)
        async with self._turn:
            self.window_error = None
            try:
                if page is not None and condition is not None:
                    await self._open_window(page)
                return await self._hand_over(
                    reason, url, screenshot_artifact_id, done, timeout_ms, page, condition
                )
            finally:
                if self.window is not None:
                    window, self.window = self.window, None
                    await window.close()

    async def _open_window(self, page: Any) -> None:
        """A local caller on a machine with a display gets a headed window of the session."""
        if self.trust is not TrustLevel.LOCAL or not can_show_window():
            return
        try:
            self.window = await HeadedWindow.open(page, self.window_options)
        except Exception as exc:  # no window after all: the URL and screenshot still tell
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            self.window_error = self._masked(first)

    async def _hand_over(
        self,
        reason: str,
        url: str,
        screenshot_artifact_id: str | None,
        done: Callable[[], Awaitable[bool]],
        timeout_ms: int,
        page: Any,
        condition: Callable[[Any], Callable[[], Awaitable[bool]]] | None,
    ) -> str:
        window = self.window
        in_window = condition(window.page) if window is not None and condition else None
        now = time.time()
        waiting = {
            "reason": reason,
            "url": url,
            "screenshotArtifactId": screenshot_artifact_id,
            "window": window is not None,
            **({"windowError": self.window_error} if self.window_error else {}),
            "since": _iso(now),
            "timeoutAt": _iso(now + timeout_ms / 1000),
            "resumeWith": "resume_task_run",
        }
        await self.store.update_run(
            self.run_id, status=str(RunStatus.WAITING_FOR_HUMAN), waiting=waiting, resume=None
        )
        try:
            with anyio.fail_after(timeout_ms / 1000):
                how = await self._wait(
                    done, self._message(reason, url, screenshot_artifact_id), in_window
                )
                if window is not None and how in ("window", "resumed"):
                    await window.copy_back(page)  # what the person did there, into the session
                return "condition" if how == "window" else how
        except TimeoutError:
            raise TaskplateError(
                ErrorCode.HUMAN_TIMEOUT,
                f"nobody finished the hand-over within {timeout_ms} ms: {reason}",
                "Run it again when someone can act on the page, or raise the step's timeoutMs.",
                {"url": url},
            ) from None
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(STORE_WRITE_S):
                await self.store.update_run(
                    self.run_id, status=str(RunStatus.RUNNING), waiting=None
                )

    def _masked(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def _message(self, reason: str, url: str, shot: str | None) -> str:
        where = f"The page: {url}"
        if self.window is not None:
            where = f"A browser window on this computer shows the page ({url}): act there."
        if shot:
            where += f" (screenshot: artifact {shot}, read it with get_artifact)"
        return (
            f"taskplate run {self.run_id} needs a person: {reason}\n{where}\n"
            "Accept when you are done; decline if you will not do it; cancel stops the run."
        )

    async def _wait(
        self,
        done: Callable[[], Awaitable[bool]],
        message: str,
        in_window: Callable[[], Awaitable[bool]] | None = None,
    ) -> str:
        self._answers.clear()
        outcome: str | TaskplateError
        async with anyio.create_task_group() as tg:  # raises only after the group closed
            if self.asker is not None and self.asker.can_ask():
                tg.start_soon(self._ask, message)
            while True:
                if self._answers:
                    outcome = self._answers[0]
                    break
                if await done():
                    outcome = "condition"
                    break
                if in_window is not None and await in_window():
                    outcome = "window"
                    break
                if await self.store.resume_flag(self.run_id) is not None:
                    outcome = "resumed"
                    break
                if self.canceled():
                    self.cancel_run()
                await anyio.sleep(self.poll_s)
            tg.cancel_scope.cancel()
        if isinstance(outcome, TaskplateError):
            raise outcome
        return outcome

    async def _ask(self, message: str) -> None:
        assert self.asker is not None
        try:
            answer = await self.asker.ask(message)
        except CannotAsk:
            return  # the run still waits: the page, resume_task_run or the timeout ends it
        if answer == Answer.ACCEPT:
            self._answers.append("resumed")
        elif answer == Answer.DECLINE:
            self._answers.append(
                TaskplateError(
                    ErrorCode.HUMAN_DECLINED,
                    "the person declined the hand-over",
                    "Run it again when someone can act on the page.",
                )
            )
        else:
            self.cancel_run()


async def resume_run(store: Store, run_id: str, status: str) -> dict[str, Any]:
    """resume_task_run: a waiting run goes on (its caller's own: the run manager reads it for
    the caller, `RunReads.row`)."""
    if status != RunStatus.WAITING_FOR_HUMAN:
        return {"resumeRequested": False, "currentStatus": status}
    resumed = await store.request_resume(run_id)
    return {"resumeRequested": resumed, "currentStatus": str(RunStatus.WAITING_FOR_HUMAN)}
