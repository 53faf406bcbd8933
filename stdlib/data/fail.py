"""The `fail` action: stop the step with an error of the template's choosing.

Data only: runs without a browser.
"""

from typing import Any

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._schemas import args


async def run(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    code = ErrorCode(args.get("code", ErrorCode.EXECUTION_ERROR))
    raise TaskplateError(
        code, str(args["message"]), "The template stopped on purpose; read the message."
    )


ACTION = ActionSpec(
    name="fail",
    level=Level.L0,
    summary="Fail the step with a message (and optionally an error code); use with `when`.",
    args_schema=args(
        {
            "message": {"type": "string", "minLength": 1},
            "code": {
                "enum": [
                    str(ErrorCode.EXECUTION_ERROR),
                    str(ErrorCode.ASSERTION_FAILED),
                    str(ErrorCode.ELEMENT_NOT_FOUND),
                ]
            },
        },
        ["message"],
    ),
    result_schema={"type": "object", "properties": {}},
    needs_browser=False,
    run=run,
)
