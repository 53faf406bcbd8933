"""The `type` action: type text key by key into an element, as a person would.

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

_SET_VALUE = """(el, text) => {
  el.focus();
  if ('value' in el) el.value = (el.value || '') + text; else el.textContent += text;
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
}"""


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    target = await find(page, args)

    async def by_input() -> None:
        await target.press_sequentially(
            args["value"], delay=args.get("delayMs", 0), timeout=args.get("timeoutMs", 5_000)
        )

    async def by_dom() -> None:
        await target.evaluate(_SET_VALUE, args["value"])

    return await input_or_dom(
        args, f"typing into {describe(args)}", by_input, by_dom, "set the value through the DOM"
    )


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
