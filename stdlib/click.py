"""The `click` action: click an element with real input events, or a DOM click as fallback.

Declaration and implementation; page access goes through the browser runtime.
"""

from typing import Any

from browser import is_crash, translate
from dsl import ActionSpec, ErrorCode, Level
from stdlib._context import ActionContext
from stdlib._elements import describe, find

from ._schemas import STRATEGY, STRING, TIMEOUT_MS, args, result


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)
    doing = f"clicking {describe(args)}"
    if args.get("strategy", "input") == "input":
        try:
            await target.click(
                button=args.get("button", "left"),
                click_count=args.get("clickCount", 1),
                timeout=args.get("timeoutMs", 5_000),
            )
            return {"strategy": "input"}
        except Exception as exc:
            if is_crash(exc):
                raise translate(
                    exc, doing=doing, timeout_code=ErrorCode.ELEMENT_NOT_FOUND
                ) from None
            reason = str(exc).splitlines()[0]
    else:
        reason = ""
    try:
        await target.evaluate("el => el.click()")
    except Exception as exc:
        raise translate(exc, doing=doing, timeout_code=ErrorCode.ELEMENT_NOT_FOUND) from None
    result: dict[str, Any] = {"strategy": "dom"}
    if reason:
        result["warnings"] = [
            f"input events could not click it ({reason}); used element.click() instead"
        ]
    return result


ACTION = ActionSpec(
    name="click",
    level=Level.L1,
    summary="Click an element (selector, xpath, text or ref); says which strategy was used.",
    args_schema=args(
        {
            "strategy": STRATEGY,
            "button": {"enum": ["left", "right", "middle"], "default": "left"},
            "clickCount": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1},
            "timeoutMs": TIMEOUT_MS,
        },
        target=True,
    ),
    result_schema=result({"strategy": STRING}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
