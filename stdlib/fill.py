"""The `fill` action: set a form field's value in one go.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import STRING, TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="fill",
    level=Level.L1,
    summary="Set the value of an input, textarea or contenteditable element.",
    args_schema=args(
        {"value": {"type": "string"}, "timeoutMs": TIMEOUT_MS}, ["value"], target=True
    ),
    result_schema=result({"strategy": STRING}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
