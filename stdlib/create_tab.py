"""The `create_tab` action: open a new tab in the session, optionally at a URL.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import STRING, args, result

ACTION = ActionSpec(
    name="create_tab",
    level=Level.L0,
    summary="Open a new tab in the session (at most 20 per session); answers its tab id.",
    args_schema=args({"url": {"type": "string", "minLength": 1}}),
    result_schema=result({"tabId": STRING, "url": STRING}),
)
