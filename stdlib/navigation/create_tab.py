"""The `create_tab` action: open a new tab in the session, optionally at a URL.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

from .._schemas import STRING, URL, args, result

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    session = ctx.need_session()
    url = args.get("url")
    if url:
        await ctx.check_url(url)
    tab = await session.new_tab()
    if url:
        try:
            response = await tab.page.goto(url)
        except Exception as exc:
            await session.close_tab(tab.id)
            if tab.refused:
                raise TaskplateError(
                    ErrorCode.URL_NOT_ALLOWED,
                    tab.refused,
                    "Use a public http(s) URL.",
                    {"url": url},
                ) from None
            raise translate(
                exc, doing=f"opening {url}", timeout_code=ErrorCode.NAVIGATION_TIMEOUT
            ) from None
        tab.status = response.status if response is not None else None
    return {"tabId": tab.id, "url": tab.page.url}


ACTION = ActionSpec(
    name="create_tab",
    level=Level.L0,
    summary="Open a new tab in the session (at most 20 per session); answers its tab id.",
    args_schema=args({"url": URL}),
    result_schema=result({"tabId": STRING, "url": STRING}),
    run=run,
    uses_tab=False,
)
