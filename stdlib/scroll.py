"""The `scroll` action: scroll the page (to load lazy content) or bring an element into view.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from taskplate.contract import Level
from taskplate.dsl import ActionSpec
from taskplate.stdlib._elements import find

from ._schemas import INTEGER, TARGET_PROPS, args, result

if TYPE_CHECKING:
    from taskplate.stdlib._context import ActionContext

_GROWTH_WAIT_S = 1.0


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    if args.keys() & {"selector", "xpath", "text", "ref"}:
        await (await find(page, args)).scroll_into_view_if_needed()
    else:
        for _ in range(args.get("times", 1)):
            height = await page.evaluate("document.documentElement.scrollHeight")
            if "by" in args:
                await page.evaluate("(d) => window.scrollBy(0, d)", args["by"])
            else:
                target = "0" if args.get("to") == "top" else "document.documentElement.scrollHeight"
                await page.evaluate(f"window.scrollTo(0, {target})")
            # Lazy pages append content when scrolled: give them a moment to grow.
            with anyio.move_on_after(_GROWTH_WAIT_S):
                while (
                    await page.evaluate("document.documentElement.scrollHeight") == height
                    and args.get("to") != "top"
                ):
                    await anyio.sleep(0.05)
    position = await page.evaluate("[window.scrollY, document.documentElement.scrollHeight]")
    return {"scrollY": int(position[0]), "scrollHeight": int(position[1])}


ACTION = ActionSpec(
    name="scroll",
    level=Level.L0,
    summary="Scroll to the bottom/top, by a distance, or to an element; repeat for lazy pages.",
    args_schema=args(
        {
            **TARGET_PROPS,
            "to": {"enum": ["top", "bottom"]},
            "by": {"type": "integer", "description": "Pixels down (negative: up)."},
            "times": {"type": "integer", "minimum": 1, "maximum": 50, "default": 1},
        }
    ),
    result_schema=result({"scrollY": INTEGER, "scrollHeight": INTEGER}),
    run=run,
)
