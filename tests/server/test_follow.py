"""A follower passes on everything a run did, the last progress and the last log entry too,
however slowly the client's messages go out (the bar must end full)."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from taskplate.contract import StepStatus
from taskplate.interpreter import Progress, StepRow, progress_text
from taskplate.server import _follow
from taskplate.server._logging import LogLevels

pytestmark = pytest.mark.anyio


class SlowContext:
    """A client whose every message takes a while to go out."""

    def __init__(self, send_s: float) -> None:
        self.send_s = send_s
        self.progress: list[tuple[float, float | None]] = []
        self.messages: list[str] = []
        self.sent_one = anyio.Event()  # a progress has gone out
        self.logs: list[tuple[str, Any]] = []
        self.sending_last = anyio.Event()  # the run's last progress has begun to go out
        self.request_context = SimpleNamespace(protocol_version="2025-06-18", meta={}, request=None)

    async def report_progress(self, done: float, total: float | None, message: str) -> None:
        if done == total:
            self.sending_last.set()
        await anyio.sleep(self.send_s)
        self.progress.append((done, total))
        self.messages.append(message)
        self.sent_one.set()

    async def log(self, level: str, data: Any, logger_name: str | None = None) -> None:
        await anyio.sleep(self.send_s)
        self.logs.append((level, data))


class OneRun:
    """A manager with one live run that moves through its steps, then ends."""

    def __init__(self, steps: int, step_s: float, ctx: SlowContext | None = None) -> None:
        self.steps, self.step_s = steps, step_s
        self.ctx = ctx  # when given, the run ends while its last progress is going out
        self.stopped: list[Any] = []  # the listeners the follower took off, at its end

    def stop_listening(self, run_id: str, *listeners: Any) -> None:
        self.stopped.extend(listeners)

    async def wait(self, run_id: str, on_progress: Any, on_step: Any) -> dict[str, Any]:
        progress = Progress(total_steps=self.steps)
        for index in range(self.steps):
            await anyio.sleep(self.step_s)
            progress.done_steps = index + 1
            on_progress(progress)
            on_step(
                StepRow(
                    seq=index,
                    step_id=f"s{index}",
                    action="navigate",
                    status=StepStatus.FAILED if index == self.steps - 1 else StepStatus.SUCCEEDED,
                    attempts=1,
                    started_at=0.0,
                    ended_at=0.001,
                    item_index=None,
                    error={"errorCode": "TIMEOUT", "error": "too slow"}
                    if index == self.steps - 1
                    else None,
                )
            )
        if self.ctx is not None:
            await self.ctx.sending_last.wait()
        return {"runId": run_id, "status": "failed"}


@pytest.mark.parametrize(("send_s", "step_s"), [(0.0, 0.0), (0.05, 0.0), (0.2, 0.01), (0.01, 0.35)])
async def test_the_last_progress_and_every_entry_reach_the_client(
    send_s: float, step_s: float
) -> None:
    ctx = SlowContext(send_s)
    levels = LogLevels(levels={"stdio": "info"})
    with anyio.fail_after(30):
        answer = await _follow.follow(OneRun(2, step_s), ctx, "r1", levels)  # type: ignore[arg-type]
    assert answer["status"] == "failed"
    assert ctx.progress[-1] == (2, 2), ctx.progress
    assert len(ctx.progress) == len(set(ctx.progress)), "a progress sent twice"
    steps = [data["step"] for _, data in ctx.logs if "step" in data]
    assert steps == ["s0", "s1"], ctx.logs
    assert ctx.logs[-1][1]["status"] == "failed"


async def test_a_run_that_ends_while_its_last_progress_goes_out_still_ends_full() -> None:
    ctx = SlowContext(0.2)
    levels = LogLevels(levels={"stdio": "info"})
    with anyio.fail_after(30):
        await _follow.follow(OneRun(2, 0.0, ctx), ctx, "r1", levels)  # type: ignore[arg-type]
    assert ctx.progress[-1] == (2, 2), ctx.progress
    assert [data["step"] for _, data in ctx.logs if "step" in data] == ["s0", "s1"], ctx.logs


class FinishedRun:
    """A run that ended before its follower began to listen: only its view tells."""

    def stop_listening(self, run_id: str, *listeners: Any) -> None:
        pass  # nothing listens to a run that ended

    async def wait(self, run_id: str, on_progress: Any, on_step: Any) -> dict[str, Any]:
        progress = {"totalSteps": 3, "doneSteps": 3, "items": {"total": 2, "done": 2}}
        return {"runId": run_id, "status": "succeeded", "progress": progress}


async def test_a_run_over_before_its_follower_listened_still_ends_full() -> None:
    ctx = SlowContext(0.0)
    with anyio.fail_after(30):
        await _follow.follow(FinishedRun(), ctx, "r1", LogLevels())  # type: ignore[arg-type]
    assert ctx.progress == [(2, 2)]


class GrowingRun:
    """A crawl whose loop grows: one of three pages known is read after 2 s, then it ends at 5."""

    def __init__(self, ctx: SlowContext) -> None:
        self.ctx = ctx

    def stop_listening(self, run_id: str, *listeners: Any) -> None:
        pass

    async def wait(self, run_id: str, on_progress: Any, on_step: Any) -> dict[str, Any]:
        progress = Progress(has_loop=True, growing=True, items_total=3, items_done=1)
        progress.started_at = time.time() - 2
        on_progress(progress)
        await self.ctx.sent_one.wait()  # the follower passed it on
        done = {"total": 5, "done": 5, "succeeded": 5, "failed": 0, "growing": True}
        return {"runId": run_id, "status": "succeeded", "progress": {"items": done}}


async def test_progress_notifications_say_what_the_runs_page_says_of_a_growing_loop() -> None:
    ctx = SlowContext(0.0)
    with anyio.fail_after(30):
        answer = await _follow.follow(GrowingRun(ctx), ctx, "r1", LogLevels())  # type: ignore[arg-type]
    assert ctx.progress == [(1, 3), (5, 5)]
    first, last = ctx.messages
    assert first.startswith(
        "1 of 3+ items done (the loop grows: the total is what is known so far)"
    )
    assert first.endswith(" left") and ", about " in first  # 2 s for one item, two to go: ~4 s
    assert (
        last
        == progress_text(answer["progress"])
        == ("5 of 5+ items done (the loop grows: the total is what is known so far)")
    )
