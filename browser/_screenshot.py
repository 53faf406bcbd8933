"""A screenshot that outlasts Chromium's passing failures to paint.

Under load, Chromium's `Page.captureScreenshot` sometimes answers a protocol error ("Unable to
capture screenshot": the compositor gave no frame in time) for a page it paints a moment later.
A screenshot action, a hand-over's picture and a failed step's picture all went wrong on that
alone (CI, #54's stop: a fresh session's tab on a loaded machine). `screenshot` asks again twice,
after a short pause; any other failure, and a third refusal, go to the caller as they are.
"""

from __future__ import annotations

from typing import Any

import anyio

# The protocol call Playwright's page and element screenshots make; its errors name it.
_CAPTURE = "Protocol error (Page.captureScreenshot)"
# Pauses before the second and the third try: well under a step's default timeout.
PAUSES_S = (0.2, 0.8)


def passing(exc: BaseException) -> bool:
    """Whether `exc` is Chromium's refusal to paint, which a later try may not meet."""
    return _CAPTURE in str(exc)


async def screenshot(target: Any, **options: Any) -> bytes:
    """`target.screenshot(**options)` (a page or a locator or an element), asked again after a
    passing refusal to paint."""
    for pause in PAUSES_S:
        try:
            return bytes(await target.screenshot(**options))
        except Exception as exc:
            if not passing(exc):
                raise
        await anyio.sleep(pause)
    return bytes(await target.screenshot(**options))
