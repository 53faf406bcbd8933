"""The `type` action: type text key by key into an element, as a person would.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import STRATEGY, STRING, TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="type",
    level=Level.L1,
    summary="Type text into an element key by key (input events), or set it through the DOM.",
    args_schema=args(
        {
            "text": {
                "type": "string",
                "description": "What to type (also names a target when no other is given).",
            },
            "delayMs": {"type": "integer", "minimum": 0, "maximum": 1_000, "default": 0},
            "strategy": STRATEGY,
            "timeoutMs": TIMEOUT_MS,
        },
        ["text"],
        target=True,
    ),
    result_schema=result({"strategy": STRING}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
