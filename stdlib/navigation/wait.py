"""The `wait` action: a fixed pause, for pages whose readiness cannot be observed.

Declaration and implementation; page access goes through the browser runtime.
"""

from typing import Any

import anyio

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from .._schemas import INTEGER, args, result


async def run(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    await anyio.sleep(args["ms"] / 1000)
    session = ctx.session
    tab = session.tabs.get(ctx.tab_id or session.main_tab) if session is not None else None
    if tab is not None:  # the caller chose how long the page gets: readers do not wait again
        tab.unsettled = False
    return {"waitedMs": args["ms"]}


ACTION = ActionSpec(
    name="wait",
    level=Level.L0,
    summary="Pause for a fixed number of milliseconds (at most 60 s).",
    args_schema=args({"ms": {"type": "integer", "minimum": 0, "maximum": 60_000}}, ["ms"]),
    result_schema=result({"waitedMs": INTEGER}),
    needs_browser=False,
    run=run,
)
