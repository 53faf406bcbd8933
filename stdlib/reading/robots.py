"""The `robots` action: which of some URLs a site's robots.txt lets us read, for steps that read
pages with the browser (`fetch` checks robots.txt itself). Declaration and implementation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from .._schemas import args, result

if TYPE_CHECKING:
    from .._context import ActionContext

_URLS = {"type": "array", "items": {"type": "string"}}


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    from ..web import client_for

    allowed, disallowed = [], []
    async with client_for(ctx) as web:
        for url in args["urls"]:
            if not url.startswith(("http://", "https://")) or await ctx.policy.refusal_async(url):
                disallowed.append(url)  # never asked for: robots.txt of a host we may not reach
            elif await web.allowed(url):
                allowed.append(url)
            else:
                disallowed.append(url)
    return {"allowed": allowed, "disallowed": disallowed}


ACTION = ActionSpec(
    name="robots",
    level=Level.L0,
    summary="Split URLs into those the sites' robots.txt allow and those they disallow (or the "
    "URL policy refuses), in order. Each host's robots.txt is read once per run.",
    args_schema=args({"urls": {**_URLS, "maxItems": 10_000}}, ["urls"]),
    result_schema=result({"allowed": _URLS, "disallowed": _URLS}),
    needs_browser=False,
    pure=True,
    run=run,
)
