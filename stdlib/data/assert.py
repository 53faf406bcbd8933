"""The `assert` action: fail the step with ASSERTION_FAILED unless a condition holds.

Data only: runs without a browser.
"""

from typing import Any

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec, truthy

from .._schemas import BOOLEAN, args, result


async def run(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    if not truthy(args.get("that")):
        message = args.get("message") or "assertion failed"
        raise TaskplateError(
            ErrorCode.ASSERTION_FAILED,
            message,
            "Check the condition and the page it was computed from.",
        )
    return {"passed": True}


ACTION = ActionSpec(
    name="assert",
    level=Level.L0,
    summary="Fail the step (ASSERTION_FAILED) with a message unless `that` is true.",
    args_schema=args({"that": {}, "message": {"type": "string"}}, ["that"]),
    result_schema=result({"passed": BOOLEAN}),
    needs_browser=False,
    run=run,
)
