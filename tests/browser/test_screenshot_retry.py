"""A screenshot asked again after Chromium's passing refusal to paint (`Protocol error
(Page.captureScreenshot)`), and only then: CI met the refusal once on a fresh tab under load.
The real capture is shown by the screenshot action's tests against Chromium; here a target
refuses on cue."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError

from taskplate.browser import _capture, screenshot

pytestmark = pytest.mark.anyio
REFUSED = "Page.screenshot: Protocol error (Page.captureScreenshot): Unable to capture screenshot"


class Refusing:
    """A page that answers `error` to its first `refusals` screenshots."""

    def __init__(self, refusals: int, error: str = REFUSED) -> None:
        self.refusals = refusals
        self.error = error
        self.calls: list[dict[str, Any]] = []

    async def screenshot(self, **options: Any) -> bytes:
        self.calls.append(options)
        if len(self.calls) <= self.refusals:
            raise PlaywrightError(self.error)
        return b"\x89PNG"


@pytest.fixture(autouse=True)
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_capture, "PAUSES_S", (0.0, 0.0))


async def test_a_refusal_to_paint_is_asked_again_with_the_same_options() -> None:
    page = Refusing(refusals=2)
    assert await screenshot(page, full_page=True, timeout=5) == b"\x89PNG"
    assert page.calls == [{"full_page": True, "timeout": 5}] * 3


async def test_a_third_refusal_reaches_the_caller() -> None:
    page = Refusing(refusals=3)
    with pytest.raises(PlaywrightError, match="Unable to capture screenshot"):
        await screenshot(page)
    assert len(page.calls) == 3


@pytest.mark.parametrize(
    "error", ["Timeout 30000ms exceeded.", "Target page, context or browser has been closed"]
)
async def test_any_other_failure_is_not_asked_again(error: str) -> None:
    page = Refusing(refusals=1, error=error)
    with pytest.raises(PlaywrightError, match=error.split(" ")[0]):
        await screenshot(page)
    assert len(page.calls) == 1
