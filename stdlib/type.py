"""The `type` action: type text key by key into an element, as a person would.

Declaration and implementation; page access goes through the browser runtime.
"""

from typing import Any

from browser import is_crash, translate
from dsl import ActionSpec, ErrorCode, Level
from stdlib._context import ActionContext
from stdlib._elements import describe, find

from ._schemas import STRATEGY, STRING, TIMEOUT_MS, args, result

_SET_VALUE = """(el, text) => {
  el.focus();
  if ('value' in el) el.value = (el.value || '') + text; else el.textContent += text;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
}"""


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)
    doing = f"typing into {describe(args)}"
    reason = ""
    if args.get("strategy", "input") == "input":
        try:
            await target.press_sequentially(
                args["value"], delay=args.get("delayMs", 0), timeout=args.get("timeoutMs", 5_000)
            )
            return {"strategy": "input"}
        except Exception as exc:
            if is_crash(exc):
                raise translate(
                    exc, doing=doing, timeout_code=ErrorCode.ELEMENT_NOT_FOUND
                ) from None
            reason = str(exc).splitlines()[0]
    try:
        await target.evaluate(_SET_VALUE, args["value"])
    except Exception as exc:
        raise translate(exc, doing=doing, timeout_code=ErrorCode.ELEMENT_NOT_FOUND) from None
    result: dict[str, Any] = {"strategy": "dom"}
    if reason:
        result["warnings"] = [
            f"input events could not type ({reason}); set the value through the DOM"
        ]
    return result


ACTION = ActionSpec(
    name="type",
    level=Level.L1,
    summary="Type text into an element key by key (input events), or set it through the DOM.",
    args_schema=args(
        {
            "value": {"type": "string", "description": "What to type."},
            "delayMs": {"type": "integer", "minimum": 0, "maximum": 1_000, "default": 0},
            "strategy": STRATEGY,
            "timeoutMs": TIMEOUT_MS,
        },
        ["value"],
        target=True,
    ),
    result_schema=result({"strategy": STRING}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
