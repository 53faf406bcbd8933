"""How exactly a run keeps to a site's Retry-After, and what the per-host pace costs a request
when nothing holds it back: a local site answers 429 with `Retry-After: 1` once, then 200; plain
HTTP meets the 429 and the browser's next load of the host (`navigate`) waits it out. Measured
at the site: from its 429 to the next request it gets (at least 1 s, and how much more).
The cost: `HostThrottle.wait` + `answered` for a host with no delay, per request.

Run: .venv/bin/python bench/backoff.py [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time

import anyio
from _setup import spread

from taskplate.browser import BrowserConfig, BrowserRuntime, HostThrottle, Network, Sessions
from taskplate.stdlib import ActionContext, WebClient, run_action
from tests.fixtures.network_site import network_site


async def gaps(rounds: int) -> list[float]:
    runtime = BrowserRuntime(BrowserConfig())
    sessions = Sessions(runtime)
    await runtime.browser()  # launched before the clocks: a round measures the wait alone
    found = []
    with network_site() as site:
        for _ in range(rounds):
            site.busy_until, site.busy_seen = None, []
            # The 429 kept (no retry of plain HTTP's own): the browser's next load waits it out.
            network = Network(throttle=HostThrottle(retries=0))
            async with WebClient(network=network) as web:
                await web.get(site.url("/busy"), 10_000)
            session = await sessions.create(network=network)
            await run_action("navigate", ActionContext(session=session), {"url": site.url("/busy")})
            await sessions.close(session.id)
            (asked, _), (next_at, status) = site.busy_seen
            assert status == 200
            found.append((next_at - asked) * 1000)
    await runtime.close()
    return found


async def cost(requests: int = 20_000) -> float:
    throttle = HostThrottle()
    start = time.perf_counter()
    for _ in range(requests):
        await throttle.wait("https://a.test/x")
        throttle.answered("https://a.test/x", 200, None, 0.0)
    return (time.perf_counter() - start) / requests * 1e6


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    found = anyio.run(gaps, rounds)
    median = statistics.median(found)
    print(
        f"Retry-After: 1 -> next request after {median:.0f} ms median ({spread(found)}; {rounds} rounds)"
    )
    costs = [anyio.run(cost) for _ in range(rounds)]
    print(f"pace per request, no delay: {statistics.median(costs):.1f} us median ({spread(costs)})")


if __name__ == "__main__":
    main()
