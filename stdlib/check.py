"""The `check` action: tick or untick a checkbox or radio button.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import BOOLEAN, TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="check",
    level=Level.L1,
    summary="Set a checkbox or radio button to checked (or unchecked with checked: false).",
    args_schema=args(
        {"checked": {"type": "boolean", "default": True}, "timeoutMs": TIMEOUT_MS}, target=True
    ),
    result_schema=result({"checked": BOOLEAN}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
