"""The `close_tab` action: close one tab of the session.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import BOOLEAN, args, result

ACTION = ActionSpec(
    name="close_tab",
    level=Level.L0,
    summary="Close a tab of the session by its id.",
    args_schema=args({"tabId": {"type": "string", "minLength": 1}}, ["tabId"]),
    result_schema=result({"closed": BOOLEAN}),
)
