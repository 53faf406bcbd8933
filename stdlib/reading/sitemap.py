"""The `sitemap` action: the URLs a site's sitemaps list (those its robots.txt names, else
/sitemap.xml), without a browser. Declaration and implementation; HTTP through the run's client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from .._schemas import INTEGER, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    from ..web import client_for, origin

    url = args["url"]
    await ctx.check_url(origin(url) + "/")
    async with client_for(ctx) as web:
        urls = await web.sitemap_urls(url, args.get("maxUrls", 5000))
        if args.get("obeyRobots", True) and web.config.obey_robots:
            urls = [u for u in urls if await web.allowed(u)]
    return {"urls": urls, "count": len(urls)}


ACTION = ActionSpec(
    name="sitemap",
    level=Level.L0,
    summary="The URLs of a site's sitemaps (named by robots.txt, else /sitemap.xml; index files "
    "followed, gzip read), same host only, those robots.txt allows; [] when it has none.",
    args_schema=args(
        {
            "url": {
                "type": "string",
                "format": "uri",
                "pattern": "^https?://",
                "description": "A URL of the site (its origin is used).",
            },
            "maxUrls": {"type": "integer", "minimum": 1, "maximum": 50_000, "default": 5000},
            "obeyRobots": {
                "type": "boolean",
                "default": True,
                "description": "Leave out URLs robots.txt disallows.",
            },
        },
        ["url"],
    ),
    result_schema=result(
        {"urls": {"type": "array", "items": {"type": "string"}}, "count": INTEGER}
    ),
    needs_browser=False,
    pure=True,
    run=run,
)
