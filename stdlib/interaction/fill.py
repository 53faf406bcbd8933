"""The `fill` action: set a form field's value in one go.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.browser import translate, untraced
from taskplate.contract import ErrorCode, Level
from taskplate.dsl import ActionSpec

from .._elements import describe, find
from .._schemas import BOOLEAN, STRING, TIMEOUT_MS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext

_IS_PASSWORD = "e => e instanceof HTMLInputElement && e.type === 'password'"


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)
    try:
        await target.fill(args["value"], timeout=args.get("timeoutMs", 5_000))
    except Exception as exc:
        raise translate(
            exc, doing=f"filling {describe(args)}", timeout_code=ErrorCode.ELEMENT_NOT_FOUND
        ) from None
    # A value typed into a password field is a secret: masked in the run's records, and a
    # template recorded from it asks for it as a password input.
    secret = bool(args.get("secret"))
    if not secret:
        try:
            secret = bool(await untraced(lambda: target.evaluate(_IS_PASSWORD)))
        except Exception:  # the page moved on after the fill: the flag alone decides
            secret = False
    return {"strategy": "input", "secret": secret}


ACTION = ActionSpec(
    name="fill",
    level=Level.L1,
    summary="Set the value of an input, textarea or contenteditable element.",
    args_schema=args(
        {
            "value": {"type": "string"},
            "secret": {
                "type": "boolean",
                "description": "A secret (as a password field is): never stored or shown.",
            },
            "timeoutMs": TIMEOUT_MS,
        },
        ["value"],
        target=True,
    ),
    result_schema=result({"strategy": STRING, "secret": BOOLEAN}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
