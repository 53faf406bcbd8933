"""The `save_profile` action: publish the session's login state as a profile snapshot.

Declaration and implementation; the profile store does the publishing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._schemas import BOOLEAN, INTEGER, STRING, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    if ctx.profiles is None:
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            "profiles are not available here",
            "Run the template through a runtime with a profile store.",
        )
    return await ctx.profiles.publish(ctx.need_session(), args.get("profileId", "master"))


ACTION = ActionSpec(
    name="save_profile",
    level=Level.L1,
    summary="Publish the session's cookies and storage as the profile's newest snapshot.",
    args_schema=args(
        {"profileId": {"type": "string", "pattern": "^[a-zA-Z0-9._-]{1,64}$", "default": "master"}}
    ),
    result_schema=result({"profileId": STRING, "version": INTEGER, "published": BOOLEAN}),
    run=run,
    uses_tab=False,
)
