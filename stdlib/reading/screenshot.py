"""The `screenshot` action: a PNG of the page or of one element, stored as an artifact.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from taskplate.browser import screenshot, translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._elements import find
from .._schemas import INTEGER, STRING, args, css_selector, result

if TYPE_CHECKING:
    from .._context import ActionContext

# Chromium paints a full page as one surface: a 200,000-pixel page takes tens of seconds and
# hundreds of megabytes, for an image no reader can use. Taller pages are cut, with a warning.
MAX_FULL_PAGE_HEIGHT = 16_384
# Painting that much took 3 s on a quiet machine and 18 s at a load of 26 on two cores, near
# Playwright's default 30 s; the error answer made a server test flaky (#13). The height cap
# bounds the work, so this only stops a hang.
FULL_PAGE_TIMEOUT_MS = 120_000


def png_size(data: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


async def _full_page(page: Any, warnings: list[str]) -> bytes:
    width, height = await page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    if height <= MAX_FULL_PAGE_HEIGHT:
        return await screenshot(page, full_page=True, timeout=FULL_PAGE_TIMEOUT_MS)
    warnings.append(
        f"the page is {height} px tall; the screenshot shows its first {MAX_FULL_PAGE_HEIGHT} px"
    )
    clip = {"x": 0, "y": 0, "width": width, "height": MAX_FULL_PAGE_HEIGHT}
    return await screenshot(page, full_page=True, clip=clip, timeout=FULL_PAGE_TIMEOUT_MS)


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    warnings: list[str] = []
    try:
        if "selector" in args:
            data = await screenshot(await find(page, args, state="visible"))
        elif args.get("fullPage", False):
            data = await _full_page(page, warnings)
        else:
            data = await screenshot(page)
    except TaskplateError:
        raise
    except Exception as exc:
        raise translate(
            exc, doing="taking a screenshot", timeout_code=ErrorCode.EXECUTION_ERROR
        ) from None
    width, height = png_size(data)
    artifact_id = await ctx.save_artifact(args.get("name", "screenshot.png"), data, "image/png")
    answer: dict[str, Any] = {"artifactId": artifact_id, "width": width, "height": height}
    if warnings:
        answer["warnings"] = warnings
    return answer


ACTION = ActionSpec(
    name="screenshot",
    level=Level.L0,
    summary="A PNG screenshot of the viewport, the full page or one element, stored as an artifact.",
    args_schema=args(
        {
            "fullPage": {"type": "boolean", "default": False},
            "selector": css_selector(),
            "name": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,100}$"},
        }
    ),
    result_schema=result({"artifactId": STRING, "width": INTEGER, "height": INTEGER}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
