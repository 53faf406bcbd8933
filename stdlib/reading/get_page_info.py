"""The `get_page_info` action: the current page's URL, title and metadata.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from .._schemas import NULLABLE_STRING, STRING, args, result

if TYPE_CHECKING:
    from .._context import ActionContext

_META = """() => {
  const attr = (sel, name) => { const el = document.querySelector(sel); return el ? el.getAttribute(name) : null; };
  const canonical = document.querySelector('link[rel="canonical"]');
  return {
    title: document.title,
    description: attr('meta[name="description"]', 'content') || attr('meta[property="og:description"]', 'content'),
    lang: document.documentElement.getAttribute('lang'),
    canonical: canonical ? canonical.href : null,
  };
}"""


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    tab = await ctx.tab()
    page = await ctx.page(error_page_ok=True)  # where the tab is, even on an error page
    meta = await page.evaluate(_META)
    return {"url": page.url, **meta, "status": tab.status}


ACTION = ActionSpec(
    name="get_page_info",
    level=Level.L0,
    summary="The current page's URL, title, description, language, canonical URL and status.",
    args_schema=args({}),
    result_schema=result(
        {
            "url": STRING,
            "title": STRING,
            "description": NULLABLE_STRING,
            "lang": NULLABLE_STRING,
            "canonical": NULLABLE_STRING,
            "status": {"type": ["integer", "null"]},
        }
    ),
    pure=True,
    run=run,
)
