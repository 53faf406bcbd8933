"""The `hover` action: move the mouse over an element (menus, tooltips).

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level
from taskplate.dsl import ActionSpec

from .._elements import describe, find
from .._schemas import TIMEOUT_MS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)
    try:
        await target.hover(timeout=args.get("timeoutMs", 5_000))
    except Exception as exc:
        raise translate(
            exc, doing=f"hovering {describe(args)}", timeout_code=ErrorCode.ELEMENT_NOT_FOUND
        ) from None
    return {}


ACTION = ActionSpec(
    name="hover",
    level=Level.L0,
    summary="Move the mouse over an element.",
    args_schema=args({"timeoutMs": TIMEOUT_MS}, target=True),
    result_schema=result({}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
