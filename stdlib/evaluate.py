"""The `evaluate` action: run JavaScript in the page (host access: local callers only).

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import args, result

ACTION = ActionSpec(
    name="evaluate",
    level=Level.L2,
    summary="Run a JavaScript function body in the page and answer its JSON value.",
    args_schema=args({"script": {"type": "string", "minLength": 1}, "arg": {}}, ["script"]),
    result_schema=result({"value": {}}),
)
