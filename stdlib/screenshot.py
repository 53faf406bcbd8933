"""The `screenshot` action: a PNG of the page or of one element, stored as an artifact.

Declaration and implementation; page access goes through the browser runtime.
"""

import struct
from typing import Any

from taskplate.browser import translate
from taskplate.dsl import ActionSpec, ErrorCode, Level, TaskplateError
from taskplate.stdlib._context import ActionContext
from taskplate.stdlib._elements import find

from ._schemas import INTEGER, STRING, args, result


def png_size(data: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    try:
        if "selector" in args:
            data = await (await find(page, args, state="visible")).screenshot()
        else:
            data = await page.screenshot(full_page=args.get("fullPage", False))
    except TaskplateError:
        raise
    except Exception as exc:
        raise translate(
            exc, doing="taking a screenshot", timeout_code=ErrorCode.EXECUTION_ERROR
        ) from None
    width, height = png_size(data)
    artifact_id = await ctx.save_artifact(args.get("name", "screenshot.png"), data, "image/png")
    return {"artifactId": artifact_id, "width": width, "height": height}


ACTION = ActionSpec(
    name="screenshot",
    level=Level.L0,
    summary="A PNG screenshot of the viewport, the full page or one element, stored as an artifact.",
    args_schema=args(
        {
            "fullPage": {"type": "boolean", "default": False},
            "selector": {"type": "string", "minLength": 1},
            "name": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,100}$"},
        }
    ),
    result_schema=result({"artifactId": STRING, "width": INTEGER, "height": INTEGER}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
