"""Cleanups finish: a close that hangs is left after its bound, even inside a cancelled scope, and
a close that fails is logged, not raised over the error that brought the caller there."""

from __future__ import annotations

import logging

import anyio
import pytest

from taskplate.browser import cleanup

pytestmark = pytest.mark.anyio


async def test_a_hanging_close_is_left_after_its_bound_even_when_the_caller_is_cancelled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reached = []
    with anyio.fail_after(10):  # the bound, not this, ends the wait
        with anyio.CancelScope() as outer:
            outer.cancel()  # the caller is cancelled already: the cleanup still runs
            with cleanup(0.2, what="closing a hung tab"):
                reached.append("started")
                await anyio.sleep_forever()
            reached.append("after")  # past the cleanup: the cancelled scope ends the rest
            await anyio.sleep(0)
            reached.append("never")
    assert reached == ["started", "after"]
    assert "closing a hung tab did not finish within 0.2 s; left behind" in caplog.text


async def test_a_failing_close_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "taskplate.browser")
    with cleanup(what="closing a gone browser"):
        raise RuntimeError("Target closed\nmore detail")
    assert "closing a gone browser failed: Target closed" in caplog.text
