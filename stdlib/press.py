"""The `press` action: press a key or a chord (Enter, Control+A) on the page or an element.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import STRING, TARGET_PROPS, TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="press",
    level=Level.L1,
    summary="Press a key or chord, on an element when a target is given, else on the page.",
    args_schema=args(
        {**TARGET_PROPS, "key": {"type": "string", "minLength": 1}, "timeoutMs": TIMEOUT_MS},
        ["key"],
    ),
    result_schema=result({"key": STRING}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
