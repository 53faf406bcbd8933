"""The `wait_for` action: wait for an element, a text or a URL to appear (or go away).

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import BOOLEAN, INTEGER, TIMEOUT_MS, result

ACTION = ActionSpec(
    name="wait_for",
    level=Level.L0,
    summary="Wait for a selector, a text or a URL pattern to reach a state.",
    args_schema={
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "selector": {"type": "string", "minLength": 1},
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
)
