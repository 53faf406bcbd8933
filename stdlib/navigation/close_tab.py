"""The `close_tab` action: close one tab of the session.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from .._schemas import BOOLEAN, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    await ctx.need_session().close_tab(args["tabId"])
    return {"closed": True}


ACTION = ActionSpec(
    name="close_tab",
    level=Level.L0,
    summary="Close a tab of the session by its id.",
    args_schema=args({"tabId": {"type": "string", "minLength": 1}}, ["tabId"]),
    result_schema=result({"closed": BOOLEAN}),
    run=run,
    uses_tab=False,
)
