"""The `fill` action: set a form field's value in one go.

Declaration and implementation; page access goes through the browser runtime.
"""

from typing import Any

from taskplate.browser import translate
from taskplate.dsl import ActionSpec, ErrorCode, Level
from taskplate.stdlib._context import ActionContext
from taskplate.stdlib._elements import describe, find

from ._schemas import STRING, TIMEOUT_MS, args, result


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)
    try:
        await target.fill(args["value"], timeout=args.get("timeoutMs", 5_000))
    except Exception as exc:
        raise translate(
            exc, doing=f"filling {describe(args)}", timeout_code=ErrorCode.ELEMENT_NOT_FOUND
        ) from None
    return {"strategy": "input"}


ACTION = ActionSpec(
    name="fill",
    level=Level.L1,
    summary="Set the value of an input, textarea or contenteditable element.",
    args_schema=args(
        {"value": {"type": "string"}, "timeoutMs": TIMEOUT_MS}, ["value"], target=True
    ),
    result_schema=result({"strategy": STRING}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
