"""The `hover` action: move the mouse over an element (menus, tooltips).

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, ErrorCode, Level

from ._schemas import TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="hover",
    level=Level.L0,
    summary="Move the mouse over an element.",
    args_schema=args({"timeoutMs": TIMEOUT_MS}, target=True),
    result_schema=result({}),
    retryable=frozenset({ErrorCode.ELEMENT_NOT_FOUND}),
)
