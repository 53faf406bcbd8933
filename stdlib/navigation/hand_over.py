"""The `hand_over` action: a person takes the page (a CAPTCHA, a second factor) until a
condition holds on it or the run is resumed. Declaration and implementation; the waiting and
telling is the run's `HumanDesk`, never this module's."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from taskplate.browser import screenshot, translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._schemas import INTEGER, STRING, css_selector, result

if TYPE_CHECKING:
    from .._context import ActionContext

DEFAULT_TIMEOUT_MS = 300_000
MAX_TIMEOUT_MS = 3_600_000


def _condition(page: Any, until: dict[str, Any]) -> Any:
    """A cheap check of `until` on the page: one URL match or one element count."""
    pattern = re.compile(until["urlMatches"]) if "urlMatches" in until else None
    selector = until.get("selector")

    async def done() -> bool:
        if page.is_closed():
            return False
        if pattern is not None and pattern.search(page.url):
            return True
        if selector is not None:
            try:
                return bool(await page.locator(selector).first.is_visible())
            except Exception:  # the page is between documents: not yet
                return False
        return False

    return done


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    if ctx.human is None:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            "hand_over needs a run to pause (a template step), not a single tool call",
            "Use hand_over in a template, run with run_task_template or dsl run.",
        )
    page = await ctx.page(error_page_ok=True)
    try:
        done = _condition(page, args["until"])
    except re.error as exc:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER, f"urlMatches is not a valid regular expression: {exc}", ""
        ) from None
    start = time.monotonic()
    if await done():
        return {"resumedBy": "condition", "waitedMs": 0, "url": page.url}
    try:
        shot = await ctx.save_artifact("hand-over.png", await screenshot(page), "image/png")
    except Exception as exc:
        raise translate(
            exc, doing="taking the hand-over screenshot", timeout_code=ErrorCode.EXECUTION_ERROR
        ) from None
    how = await ctx.human.hand_over(
        args["reason"],
        page.url,
        shot,
        done,
        args.get("timeoutMs", DEFAULT_TIMEOUT_MS),
        page=page,
        condition=lambda other: _condition(other, args["until"]),
    )
    return {
        "resumedBy": how,
        "waitedMs": int((time.monotonic() - start) * 1000),
        "url": page.url,
    }


ACTION = ActionSpec(
    name="hand_over",
    level=Level.L1,
    summary=(
        "Hand the page to a person (a CAPTCHA, a second factor): the run waits in "
        "waiting_for_human until `until` holds on the page or resume_task_run is called."
    ),
    args_schema={
        "type": "object",
        "additionalProperties": False,
        "required": ["reason", "until"],
        "properties": {
            "reason": {
                "type": "string",
                "minLength": 1,
                "description": "What the person should do, shown to them.",
            },
            "until": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "selector": css_selector(
                        "Resume when an element matching this CSS selector is visible."
                    ),
                    "urlMatches": {
                        "type": "string",
                        "minLength": 1,
                        "description": "Resume when the page's URL matches this regular expression.",
                    },
                },
                "anyOf": [{"required": ["selector"]}, {"required": ["urlMatches"]}],
                "x-message": "needs selector or urlMatches",
            },
            "timeoutMs": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_TIMEOUT_MS,
                "default": DEFAULT_TIMEOUT_MS,
                "description": "Fail with HUMAN_TIMEOUT after this many milliseconds.",
            },
        },
    },
    result_schema=result(
        {"resumedBy": {"enum": ["condition", "resumed"]}, "waitedMs": INTEGER, "url": STRING}
    ),
    run=run,
)
