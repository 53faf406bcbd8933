"""The `click` action: click an element with real input events, or a DOM click as fallback.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, Level
from taskplate.dsl import ActionSpec

from .._elements import describe, find, input_or_dom
from .._schemas import STRATEGY, STRING, TIMEOUT_MS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)

    async def by_input() -> None:
        await target.click(
            button=args.get("button", "left"),
            click_count=args.get("clickCount", 1),
            timeout=args.get("timeoutMs", 5_000),
        )

    async def by_dom() -> None:
        await target.evaluate("el => el.click()")

    return await input_or_dom(
        args, f"clicking {describe(args)}", by_input, by_dom, "used element.click() instead"
    )


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
