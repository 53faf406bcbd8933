"""`extract` and `scroll` where #43 changed them, through real Chromium and the product path
(run_action): on a static listing, what the wait for fields adds when they are there already
(extract as default, beside `optional: true`, which never waits: the same single evaluate as
before the wait existed) and what records cost beside flat lists of the same values; on a page
that writes its cards 300 ms after load, how long after the write extract answers; on a feed
that ends after 4 loads, `scroll until: stable` beside `times: 20` alone. Rounds interleaved,
medians with the spread. The fixture site runs in a process of its own.

Run: .venv/bin/python bench/extract.py [rounds] [calls]
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import anyio
from _setup import site_in_process as serve_in_process
from _setup import spread

from taskplate.browser import BrowserRuntime, Sessions
from taskplate.stdlib import run_action
from taskplate.stdlib._context import ActionContext, MemoryArtifacts

CARD = {"title": ".t", "price": {"selector": ".p", "type": "number"}}
WAYS: dict[str, dict[str, Any]] = {
    "flat lists, optional (no wait)": {
        "fields": {
            "titles": {"selector": ".card .t", "all": True},
            "prices": {"selector": ".card .p", "all": True, "type": "number"},
        },
        "optional": True,
    },
    "flat lists (wait armed)": {
        "fields": {
            "titles": {"selector": ".card .t", "all": True},
            "prices": {"selector": ".card .p", "all": True, "type": "number"},
        }
    },
    "records (wait armed)": {
        "fields": {"cards": {"selector": ".card", "all": True, "fields": CARD}}
    },
}


async def timed(ctx: ActionContext, args: dict[str, Any], calls: int) -> float:
    """Milliseconds per extract call, over `calls` calls on the page as it is."""
    start = time.perf_counter()
    for _ in range(calls):
        await run_action("extract", ctx, args)
    return (time.perf_counter() - start) * 1000 / calls


async def late_answer(sessions: Sessions, base: str) -> float:
    """Milliseconds from the moment the late page wrote its cards to extract's answer."""
    ctx = ActionContext(session=await sessions.create(), artifacts=MemoryArtifacts())
    try:
        await run_action("navigate", ctx, {"url": f"{base}/shop/deals.html?ms=300"})
        deals = {"selector": ".deal", "all": True, "fields": {"t": ".deal-title"}}
        await run_action("extract", ctx, {"fields": {"deals": deals}})
        page = await ctx.page()
        # on the page's own clock: the fixture notes when its script wrote the cards
        now, written = await page.evaluate("[performance.now(), window.writtenAt]")
        return float(now - written)
    finally:
        await sessions.close(ctx.session.id)


async def scroll_feed(sessions: Sessions, base: str, args: dict[str, Any]) -> tuple[float, int]:
    ctx = ActionContext(session=await sessions.create(), artifacts=MemoryArtifacts())
    try:
        await run_action("navigate", ctx, {"url": f"{base}/feed.html?loads=4&ms=20"})
        start = time.perf_counter()
        await run_action("scroll", ctx, {"to": "bottom", **args})
        seconds = time.perf_counter() - start
        posts = await run_action(
            "extract", ctx, {"fields": {"p": {"selector": ".post", "all": True}}}
        )
        return seconds, len(posts["values"]["p"])
    finally:
        await sessions.close(ctx.session.id)


async def main(rounds: int, calls: int) -> None:
    runtime = BrowserRuntime()
    sessions = Sessions(runtime)
    per_call: dict[str, list[float]] = {name: [] for name in WAYS}
    late: list[float] = []
    scrolls: dict[str, list[tuple[float, int]]] = {"until: stable, times: 20": [], "times: 20": []}
    with serve_in_process() as base:
        ctx = ActionContext(session=await sessions.create(), artifacts=MemoryArtifacts())
        await run_action("navigate", ctx, {"url": f"{base}/shop/listing.html"})
        names = list(WAYS)
        for round_ in range(rounds):
            order = names[round_ % len(names) :] + names[: round_ % len(names)]
            for name in order:
                await timed(ctx, WAYS[name], 5)  # warm
                per_call[name].append(await timed(ctx, WAYS[name], calls))
            late.append(await late_answer(sessions, base))
        await sessions.close(ctx.session.id)
        for _ in range(max(1, rounds // 3)):
            scrolls["until: stable, times: 20"].append(
                await scroll_feed(sessions, base, {"until": "stable", "times": 20})
            )
            scrolls["times: 20"].append(await scroll_feed(sessions, base, {"times": 20}))
    await sessions.close_all()
    await runtime.close()
    print(
        f"extract on a static listing of 3 cards, ms per call ({rounds} rounds of {calls} calls):"
    )
    for name, values in per_call.items():
        print(f"  {name:32s}: median {statistics.median(values):.2f} ms ({spread(values)})")
    print("extract on cards written 300 ms after load, ms from the write to the answer:")
    print(f"  median {statistics.median(late):.0f} ms ({spread(late)})")
    print("scroll on a feed that ends after 4 loads (20 ms each), s and posts read:")
    for name, values in scrolls.items():
        seconds = [s for s, _ in values]
        print(
            f"  {name:26s}: median {statistics.median(seconds):.2f} s ({spread(seconds)}), "
            f"posts {sorted({n for _, n in values})}"
        )


if __name__ == "__main__":
    anyio.run(
        main,
        int(sys.argv[1]) if len(sys.argv) > 1 else 7,
        int(sys.argv[2]) if len(sys.argv) > 2 else 50,
    )
