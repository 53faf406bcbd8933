"""The `click` action: click an element with real input events, or a DOM click as fallback.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import STRATEGY, STRING, TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="click",
    level=Level.L1,
    summary="Click an element (selector, xpath, text or ref); says which strategy was used.",
    args_schema=args(
        {
            "strategy": STRATEGY,
            "button": {"enum": ["left", "right", "middle"], "default": "left"},
            "clickCount": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1},
            "timeoutMs": TIMEOUT_MS,
        },
        target=True,
    ),
    result_schema=result({"strategy": STRING}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
