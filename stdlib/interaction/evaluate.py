"""The `evaluate` action: run JavaScript in the page (host access: local callers only).

Declaration and implementation; page access goes through the browser runtime. Bounded: a
script that does not settle within timeoutMs fails, and its value is answered as JSON data
(what JSON.stringify would give; a value that refers to itself fails with a code).
"""

from __future__ import annotations

import datetime
import math
import re
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.browser import translate
from taskplate.contract import MAX_VALUE_DEPTH, ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._schemas import TIMEOUT_MS, args, result

if TYPE_CHECKING:
    from .._context import ActionContext

DEFAULT_TIMEOUT_MS = 30_000
MAX_DEPTH = MAX_VALUE_DEPTH  # the bound of every value a run holds (Playwright stops at 200)


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    timeout_ms = args.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    try:
        with anyio.fail_after(timeout_ms / 1000):
            value = await page.evaluate(args["script"], args.get("arg"))
    except TimeoutError:
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            f"the script did not settle within {timeout_ms} ms",
            "Make the script return (or its promise settle) sooner, or raise timeoutMs.",
            {"timeoutMs": timeout_ms},
        ) from None
    except Exception as exc:
        raise translate(
            exc, doing="running the script", timeout_code=ErrorCode.EXECUTION_ERROR
        ) from None
    return {"value": json_data(value)}


def json_data(value: Any) -> Any:
    """Playwright's value as JSON data: dates as ISO strings, NaN and infinities as null, regular
    expressions as their source; a value that contains itself fails (JSON.stringify's rule)."""

    def convert(item: Any, path: tuple[int, ...]) -> Any:
        if isinstance(item, float) and not math.isfinite(item):
            return None
        if item is None or isinstance(item, str | int | float | bool):
            return item
        if isinstance(item, datetime.datetime):
            utc = item.astimezone(datetime.UTC)
            return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
        if isinstance(item, re.Pattern):
            return f"/{item.pattern}/"
        if not isinstance(item, dict | list):
            return str(item)
        if id(item) in path:
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                "the script's value is circular (it contains itself), which JSON cannot hold",
                "Return plain data: pick the fields you need into a new object.",
            )
        if len(path) >= MAX_DEPTH:
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"the script's value nests deeper than {MAX_DEPTH} levels",
                "Return flatter data.",
            )
        inner = (*path, id(item))
        if isinstance(item, list):
            return [convert(v, inner) for v in item]
        return {str(k): convert(v, inner) for k, v in item.items()}

    return convert(value, ())


ACTION = ActionSpec(
    name="evaluate",
    level=Level.L2,
    requires_confirm=True,  # host access: a remote caller's user must say yes
    summary="Run a JavaScript function body in the page and answer its JSON value.",
    args_schema=args(
        {
            "script": {"type": "string", "minLength": 1},
            "arg": {},
            "timeoutMs": {
                **TIMEOUT_MS,
                "default": DEFAULT_TIMEOUT_MS,
                "description": "Fail when the script has not settled after this many ms.",
            },
        },
        ["script"],
    ),
    result_schema=result({"value": {}}),
    run=run,
)
