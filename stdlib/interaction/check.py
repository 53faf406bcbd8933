"""The `check` action: tick or untick a checkbox or radio button.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level
from taskplate.dsl import ActionSpec

from .._elements import describe, find
from .._schemas import BOOLEAN, TIMEOUT_MS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)
    checked = args.get("checked", True)
    try:
        await target.set_checked(checked, timeout=args.get("timeoutMs", 5_000))
    except Exception as exc:
        raise translate(
            exc, doing=f"checking {describe(args)}", timeout_code=ErrorCode.ELEMENT_NOT_FOUND
        ) from None
    return {"checked": checked}


ACTION = ActionSpec(
    name="check",
    level=Level.L1,
    summary="Set a checkbox or radio button to checked (or unchecked with checked: false).",
    args_schema=args(
        {"checked": {"type": "boolean", "default": True}, "timeoutMs": TIMEOUT_MS}, target=True
    ),
    result_schema=result({"checked": BOOLEAN}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
