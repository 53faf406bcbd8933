"""Playwright's driver (a Node process) started for an owner that stops it: the runtime, the
hand-over window, `dsl login`."""

from __future__ import annotations

import anyio
from playwright.async_api import Playwright, async_playwright

from taskplate.contract import ErrorCode, TaskplateError

DRIVER_START_S = 60  # the driver answers within a second or two


async def start_driver() -> Playwright:
    """Playwright's driver, started whole even when the caller is cancelled meanwhile (a
    client that leaves during the warm-up): cut short, its process would be left to the
    garbage collector, past the event loop's end, where no `stop()` reaches it."""
    started: Playwright | None = None
    with anyio.CancelScope(shield=True), anyio.move_on_after(DRIVER_START_S):
        started = await async_playwright().start()
    if started is None:
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            f"Playwright's driver did not start within {DRIVER_START_S} s",
            "Run `dsl doctor` to check the browser set-up.",
        )
    return started
