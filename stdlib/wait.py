"""The `wait` action: a fixed pause, for pages whose readiness cannot be observed.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import INTEGER, args, result

ACTION = ActionSpec(
    name="wait",
    level=Level.L0,
    summary="Pause for a fixed number of milliseconds (at most 60 s).",
    args_schema=args({"ms": {"type": "integer", "minimum": 0, "maximum": 60_000}}, ["ms"]),
    result_schema=result({"waitedMs": INTEGER}),
)
