"""The `wait_for_stable` action: wait until the network is quiet and the DOM stops changing.

Declaration only until the browser runtime lands.
"""

from dsl import ActionSpec, Level

from ._schemas import BOOLEAN, INTEGER, TIMEOUT_MS, args, result

ACTION = ActionSpec(
    name="wait_for_stable",
    level=Level.L0,
    summary="Wait for network quiet and no DOM mutation for quietMs, bounded by timeoutMs.",
    args_schema=args(
        {
            "timeoutMs": TIMEOUT_MS,
            "quietMs": {"type": "integer", "minimum": 50, "maximum": 10_000, "default": 500},
        }
    ),
    result_schema=result({"stable": BOOLEAN, "waitedMs": INTEGER}),
)
