"""The `evaluate` action: run JavaScript in the page (host access: local callers only).

Declaration and implementation; page access goes through the browser runtime.
"""

from typing import Any

from taskplate.browser import translate
from taskplate.dsl import ActionSpec, ErrorCode, Level
from taskplate.stdlib._context import ActionContext

from ._schemas import args, result


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    try:
        value = await page.evaluate(args["script"], args.get("arg"))
    except Exception as exc:
        raise translate(
            exc, doing="running the script", timeout_code=ErrorCode.EXECUTION_ERROR
        ) from None
    return {"value": value}


ACTION = ActionSpec(
    name="evaluate",
    level=Level.L2,
    requires_confirm=True,  # host access: a remote caller's user must say yes
    summary="Run a JavaScript function body in the page and answer its JSON value.",
    args_schema=args({"script": {"type": "string", "minLength": 1}, "arg": {}}, ["script"]),
    result_schema=result({"value": {}}),
    run=run,
)
