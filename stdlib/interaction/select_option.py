"""The `select_option` action: choose options of a <select> by value, label or index.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._elements import describe, find
from .._schemas import MAX_INDEX, TIMEOUT_MS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext

_ONE_OR_MANY = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)
    choice = {k: args[k] for k in ("value", "label", "index") if k in args}
    if not choice:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            "select_option needs value, label or index",
            "Say which option to choose.",
        )
    try:
        selected = await target.select_option(**choice, timeout=args.get("timeoutMs", 5_000))
    except Exception as exc:
        raise translate(
            exc, doing=f"selecting in {describe(args)}", timeout_code=ErrorCode.ELEMENT_NOT_FOUND
        ) from None
    return {"selected": list(selected)}


ACTION = ActionSpec(
    name="select_option",
    level=Level.L1,
    summary="Select options of a <select> element by value, label or index.",
    args_schema=args(
        {
            "value": _ONE_OR_MANY,
            "label": _ONE_OR_MANY,
            "index": {"type": "integer", "minimum": 0, "maximum": MAX_INDEX},
            "timeoutMs": TIMEOUT_MS,
        },
        target=True,
    ),
    result_schema=result({"selected": {"type": "array", "items": {"type": "string"}}}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
