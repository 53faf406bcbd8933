"""The `press` action: press a key or a chord (Enter, Control+A) on the page or an element.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._elements import describe, find
from .._schemas import STRING, TARGET_PROPS, TIMEOUT_MS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    key = args["key"]
    try:
        if args.keys() & {"selector", "xpath", "text", "ref"}:
            await (await find(page, args)).press(key, timeout=args.get("timeoutMs", 5_000))
        else:
            await page.keyboard.press(key)
    except TaskplateError:
        raise
    except Exception as exc:
        if "Unknown key" in str(exc):
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f'unknown key "{key}"',
                "Use names such as Enter, Tab, ArrowDown or Control+A.",
            ) from None
        raise translate(
            exc,
            doing=f"pressing {key} on {describe(args)}",
            timeout_code=ErrorCode.ELEMENT_NOT_FOUND,
        ) from None
    return {"key": key}


ACTION = ActionSpec(
    name="press",
    level=Level.L1,
    summary="Press a key or chord, on an element when a target is given, else on the page.",
    args_schema=args(
        {**TARGET_PROPS, "key": {"type": "string", "minLength": 1}, "timeoutMs": TIMEOUT_MS},
        ["key"],
    ),
    result_schema=result({"key": STRING}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
