"""The `wait_for` action: wait for an element, a text or a URL to appear (or go away).

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._schemas import BOOLEAN, INTEGER, TIMEOUT_MS, css_selector, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    timeout = args.get("timeoutMs", 10_000)
    state = args.get("state", "visible")
    start = time.monotonic()
    try:
        if "urlMatches" in args:
            await page.wait_for_url(re.compile(args["urlMatches"]), timeout=timeout)
        elif "selector" in args:
            await page.locator(args["selector"]).first.wait_for(state=state, timeout=timeout)
        else:
            await page.get_by_text(args["text"]).first.wait_for(state=state, timeout=timeout)
    except re.error as exc:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER, f"urlMatches is not a valid regular expression: {exc}", ""
        ) from None
    except Exception as exc:
        what = args.get("selector") or args.get("text") or args.get("urlMatches")
        raise translate(
            exc,
            doing=f'waiting for "{what}" to be {state}',
            timeout_code=ErrorCode.ELEMENT_NOT_FOUND,
        ) from None
    (await ctx.tab()).unsettled = False  # the caller waited for what it needs: readers do not
    return {"matched": True, "waitedMs": int((time.monotonic() - start) * 1000)}


ACTION = ActionSpec(
    name="wait_for",
    level=Level.L0,
    summary="Wait for a selector, a text or a URL pattern to reach a state.",
    args_schema={
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "selector": css_selector(),
            "text": {"type": "string", "minLength": 1},
            "urlMatches": {
                "type": "string",
                "minLength": 1,
                "description": "A regular expression.",
            },
            "state": {"enum": ["attached", "detached", "visible", "hidden"], "default": "visible"},
            "timeoutMs": TIMEOUT_MS,
        },
        "anyOf": [{"required": [k]} for k in ("selector", "text", "urlMatches")],
        "x-message": "needs one of selector, text or urlMatches",
    },
    result_schema=result({"matched": BOOLEAN, "waitedMs": INTEGER}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
    run=run,
)
