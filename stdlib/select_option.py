"""The `select_option` action: choose options of a <select> by value, label or index.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import TIMEOUT_MS, args, result

_ONE_OR_MANY = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}

ACTION = ActionSpec(
    name="select_option",
    level=Level.L1,
    summary="Select options of a <select> element by value, label or index.",
    args_schema=args(
        {
            "value": _ONE_OR_MANY,
            "label": _ONE_OR_MANY,
            "index": {"type": "integer", "minimum": 0},
            "timeoutMs": TIMEOUT_MS,
        },
        target=True,
    ),
    result_schema=result({"selected": {"type": "array", "items": {"type": "string"}}}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
