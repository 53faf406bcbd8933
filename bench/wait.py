"""The smart wait (`wait_for_stable`, the wait every template and `scrape` use) on three kinds of
page, through real Chromium: how long it waits on a static page (target < 200 ms: a page quiet
since it loaded waits no quiet window), on a page that fills itself by a 700 ms timer after
load (it must wait for the timer and read the content), and on a page that never settles (it
must return at `timeoutMs`, with a warning). Rounds interleaved, each page in a fresh tab;
medians with the spread. The fixture site runs in a process of its own.

Run: .venv/bin/python bench/wait.py [rounds]
"""

from __future__ import annotations

import os
import statistics
import sys

import anyio
from _setup import site_in_process as serve_in_process

from taskplate.browser import BrowserRuntime, Sessions
from taskplate.stdlib import run_action
from taskplate.stdlib._context import ActionContext, MemoryArtifacts

STATIC_TARGET_MS = 200
RESTLESS_TIMEOUT_MS = 2000
PAGES = {  # name: (path, wait_for_stable's arguments)
    "static": ("/article.html", {}),
    "late": ("/late.html", {}),  # `setTimeout(() => app.innerHTML = '…content arrived…', 700)`
    "restless": ("/restless.html", {"timeoutMs": RESTLESS_TIMEOUT_MS}),  # changes every 100 ms
}


async def one(sessions: Sessions, url: str, wait: dict[str, int]) -> tuple[dict, str]:
    """wait_for_stable's answer on a freshly opened page, and the page's Markdown after it."""
    ctx = ActionContext(session=await sessions.create(), artifacts=MemoryArtifacts())
    try:
        await run_action("navigate", ctx, {"url": url})
        waited = await run_action("wait_for_stable", ctx, wait)
        content = await run_action("get_page_content", ctx, {})
    finally:
        await sessions.close(ctx.session.id)
    return waited, content["content"]


async def main(rounds: int) -> None:
    runtime = BrowserRuntime()
    sessions = Sessions(runtime)
    seen: dict[str, list[dict]] = {name: [] for name in PAGES}
    late_read = 0
    with serve_in_process() as base:
        try:
            await one(sessions, base + "/article.html", {})  # warm: browser up, page cached
            for n in range(rounds):
                order = list(PAGES) if n % 2 == 0 else list(PAGES)[::-1]
                for name in order:
                    path, wait = PAGES[name]
                    waited, content = await one(sessions, base + path, wait)
                    seen[name].append(waited)
                    if name == "late" and "content arrived" in content:
                        late_read += 1
                print(
                    f"  round {n + 1}: "
                    + ", ".join(f"{name} {seen[name][-1]['waitedMs']} ms" for name in PAGES),
                    flush=True,
                )
        finally:
            await sessions.close_all()
            await runtime.close()

    def ms(name: str) -> str:
        values = [w["waitedMs"] for w in seen[name]]
        return f"{statistics.median(values):6.0f} ms (rounds {min(values)}-{max(values)})"

    static = statistics.median(w["waitedMs"] for w in seen["static"])
    stable = sum(w["stable"] for w in seen["static"])
    print(
        f"smart wait, {rounds} rounds interleaved, a fresh tab each; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  static page     : {ms('static')}, stable {stable}/{rounds} "
        f"(target < {STATIC_TARGET_MS} ms: {'met' if static < STATIC_TARGET_MS else 'NOT met'})"
    )
    print(f"  700 ms timer    : {ms('late')}, its content read {late_read}/{rounds}")
    warned = sum(not w["stable"] and bool(w.get("warnings")) for w in seen["restless"])
    print(
        f"  never settles   : {ms('restless')}, returned unstable with a warning "
        f"{warned}/{rounds} (timeoutMs {RESTLESS_TIMEOUT_MS})"
    )


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 9)
