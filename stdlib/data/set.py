"""The `set` action: name values (computed by expressions) for later steps.

Data only: runs without a browser; its result is its arguments.
"""

from typing import Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec


async def run(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    return dict(args)


ACTION = ActionSpec(
    name="set",
    level=Level.L0,
    summary="Name values for later steps: the result is the arguments, evaluated.",
    args_schema={"type": "object"},
    result_schema={"type": "object"},
    needs_browser=False,
    pure=True,
    result_from_args=True,
    run=run,
)
