"""The `wait_for_stable` action: wait until the network is quiet and the DOM stops changing.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, Level
from taskplate.dsl import ActionSpec

from .._schemas import BOOLEAN, INTEGER, TIMEOUT_MS, args, result
from ..reading.get_page_content import READABLE_WORDS

if TYPE_CHECKING:
    from .._context import ActionContext


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    from taskplate.browser import wait_for_stable  # the page watcher is loaded only when used

    tab = await ctx.tab()
    settled = await wait_for_stable(tab, args.get("timeoutMs", 10_000), args.get("quietMs", 500))
    tab.unsettled = False
    warnings = []
    # The page may have gone somewhere unreachable meanwhile (the last look says if it did not).
    failed = None if settled.ordinary_page else await tab.error_page()
    if failed is not None:
        # Its own script left a page that showed something to read: get_page_content reads
        # what it showed (and fails if that was no main content).
        refused = failed.code is ErrorCode.URL_NOT_ALLOWED  # reported, never read past
        earlier = None if refused else await tab.sent_as_it_left()
        if earlier is None or earlier.words < READABLE_WORDS:
            raise failed
        warnings.append(f"the page's own script then left it: {failed.message}")
    result: dict[str, Any] = {"stable": settled.stable, "waitedMs": settled.waited_ms}
    if not settled.stable:
        busy = "; ".join(settled.busy)
        warnings.append(
            f"the page was still busy after {settled.waited_ms} ms ({busy}); read as it is"
        )
    if warnings:
        result["warnings"] = warnings
    return result


ACTION = ActionSpec(
    name="wait_for_stable",
    level=Level.L0,
    summary=(
        "Wait until the page has loaded, no request or short timer is pending and, if it changed"
        " after loading, it has been quiet for quietMs; bounded by timeoutMs."
    ),
    args_schema=args(
        {
            "timeoutMs": TIMEOUT_MS,
            "quietMs": {"type": "integer", "minimum": 50, "maximum": 10_000, "default": 500},
        }
    ),
    result_schema=result({"stable": BOOLEAN, "waitedMs": INTEGER}),
    run=run,
)
