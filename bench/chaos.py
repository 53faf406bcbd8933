"""Chaos, measured (#55 item 7): batch runs survive servers killed and restarted, nothing lost,
nothing read twice that need not be.

Set-ups, each run first undisturbed (the reference: its time and results) then disturbed:
1. kill: S `dsl serve` on one PostgreSQL behind HAProxy, R `batch_extract_pages` runs of P local
   pages (read over HTTP, concurrency 3: up to 9 pages of a run in flight); every E seconds one
   server (in turn) is SIGKILLed and started again, until every run has ended.
2. term: the same with SIGTERM rolling restarts (each server drains, hands its runs over).
3. sqlite: one server on SQLite, SIGKILLed every E seconds and started again (it resumes its own).

Checked: every run ends succeeded, its items equal the reference's (url, title, content), a
client polling never sees `failed` nor items done go back; pages read twice (counted by the
site) at most the pages in flight x kills (0 for term); the time each kill costs: (disturbed -
undisturbed) / kills. A real PostgreSQL and HAProxy (Debian's) run in a temporary folder.

Run: .venv/bin/python bench/chaos.py [kill|term|sqlite|all] [runs] [pages] [servers] [every_s]
"""

from __future__ import annotations

import contextlib
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import _setup  # noqa: F401  (the checkout first on sys.path)
import anyio
import httpx2

from tests.fixtures.chaos import Fleet, Pages, Watch, follow, items_of, start_batch
from tests.fixtures.haproxy import balancing
from tests.fixtures.postgres import running_postgres

CONCURRENCY = 3
IN_FLIGHT = 3 * CONCURRENCY  # read over HTTP: three times the browser's concurrency


async def batches(
    fleet: Fleet, url: str, pages: Pages, tag: str, runs: int, count: int, every_s: float,
    sig: signal.Signals | None,
) -> dict[str, Any]:  # fmt: skip
    """R runs at once; `sig` every `every_s` to one server in turn (restarted) until all end."""
    watches = [Watch() for _ in range(runs)]
    kills: list[float] = []
    hit: list[int] = []  # runs running on each server as it was stopped
    stalls: list[float] = []  # how long they made no progress after
    starting: set[str] = set()  # servers stopped and not listening again yet
    began = time.monotonic()
    async with httpx2.AsyncClient(timeout=60) as http, anyio.create_task_group() as tg:
        ids = [
            await start_batch(http, url, [pages.url(f"{tag}{r}", i) for i in range(count)])
            for r in range(runs)
        ]

        async def all_followed() -> None:
            async with anyio.create_task_group() as inner:
                for run_id, watch in zip(ids, watches, strict=True):
                    inner.start_soon(follow, http, url, run_id, watch)
            tg.cancel_scope.cancel()

        async def disturb() -> None:
            """Every `every_s`, the next server that is up stopped by `sig` and started again
            in the background (a start takes long on a loaded machine: the next stop does not
            wait for it); of several, one is always left up."""
            names, turn = sorted(fleet.processes), 0
            while sig is not None:
                await anyio.sleep(every_s)
                up = [n for n in names if fleet.processes[n].poll() is None and n not in starting]
                if not up or (len(up) < 2 and len(names) > 1):  # one alone: SQLite's
                    continue
                victim = next(n for n in names[turn:] + names if n in up)
                turn = (names.index(victim) + 1) % len(names)
                runs_there = await fleet.running_on(victim)
                hit.append(len(runs_there))
                kills.append(await anyio.to_thread.run_sync(fleet.stop, victim, sig))
                starting.add(victim)
                tg.start_soon(stall_and_start, victim, runs_there)

        async def stall_and_start(victim: str, runs_there: dict[str, int]) -> None:
            async with anyio.create_task_group() as both:
                both.start_soon(anyio.to_thread.run_sync, fleet.start, victim)
                stalls.append(await fleet.stalled(victim, runs_there))
            starting.discard(victim)

        tg.start_soon(all_followed)
        tg.start_soon(disturb)
    return {
        "seconds": time.monotonic() - began,
        "watches": watches,
        "ids": ids,
        "kills": kills,
        "hit": hit,
        "stalls": stalls,
    }


def compare(calm: dict[str, Any], rough: dict[str, Any], runs: int) -> dict[str, Any]:
    """Rough's runs against calm's, run by run (page urls differ by their tag only)."""
    equal = 0
    for r in range(runs):
        a = [
            (str(u).split("/p/")[1].split("/", 1)[1], s)
            for u, _, _, s in items_of(calm["watches"][r].last)
        ]
        b = [
            (str(u).split("/p/")[1].split("/", 1)[1], s)
            for u, _, _, s in items_of(rough["watches"][r].last)
        ]
        ca = [str(c).replace(f"calm{r}", "") for _, _, c, _ in items_of(calm["watches"][r].last)]
        cb = [str(c).replace(f"rough{r}", "") for _, _, c, _ in items_of(rough["watches"][r].last)]
        equal += a == b and ca == cb
        if not (a == b and ca == cb):
            say_where(r, a, b, ca, cb)
    return {
        "succeeded": sum(w.last.get("status") == "succeeded" for w in rough["watches"]),
        "equalToUndisturbed": equal,
        "sawFailed": sum("failed" in w.statuses for w in rough["watches"]),
        "progressWentBack": sum(w.went_back for w in rough["watches"]),
    }  # fmt: skip


def say_where(run: int, a: list[Any], b: list[Any], ca: list[str], cb: list[str]) -> None:
    """Where a disturbed run's items first differ from the reference's."""
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
    text = next((i for i, (x, y) in enumerate(zip(ca, cb, strict=False)) if x != y), None)
    print(f"  run {run} differs: {len(a)} items undisturbed, {len(b)} disturbed; first item "
          f"differing at {at}, first content at {text}", flush=True)  # fmt: skip
    if text is not None:
        print(f"    {ca[text][:300]!r}\n    {cb[text][:300]!r}", flush=True)


@contextlib.contextmanager
def fleet_of(kind: str, folder: Path, servers: int) -> Iterator[tuple[Fleet, str]]:
    """The servers and the URL a client calls: behind HAProxy on PostgreSQL, or one on SQLite."""
    with contextlib.ExitStack() as stack:
        if kind == "sqlite":
            fleet = Fleet(folder, "", runs_each=10, start_within_s=300)
            stack.callback(fleet.close)
            fleet.start("solo")
            yield fleet, f"http://127.0.0.1:{fleet.ports['solo']}/mcp"
            return
        postgres = stack.enter_context(running_postgres())
        fleet = Fleet(
            folder, stack.enter_context(postgres.database()), runs_each=10, start_within_s=300
        )
        stack.callback(fleet.close)
        fleet.start(*(f"s{i}" for i in range(servers)))
        balancer = stack.enter_context(balancing(fleet.ports, folder / "haproxy"))
        yield fleet, balancer.url


async def scenario(kind: str, runs: int, count: int, servers: int, every_s: float) -> None:
    sig = {"kill": signal.SIGKILL, "term": signal.SIGTERM, "sqlite": signal.SIGKILL}[kind]
    with (
        tempfile.TemporaryDirectory(prefix="taskplate-chaos-") as folder,
        Pages(delay_ms=100) as pages,
        fleet_of(kind, Path(folder), servers) as (fleet, url),
    ):
        await batches(fleet, url, pages, "warm", 3, 20, every_s, None)  # first runs' starts
        calm = await batches(fleet, url, pages, "calm", runs, count, every_s, None)
        calm_twice = pages.read_twice()  # the warm-up's and the undisturbed batch's
        rough = await batches(fleet, url, pages, "rough", runs, count, every_s, sig)
        twice = pages.read_twice() - calm_twice
        home = "solo" if kind == "sqlite" else ""
        items_twice = await fleet.items_twice(rough["ids"], home)
        calm_items_twice = await fleet.items_twice(calm["ids"], home)
        kills = len(rough["kills"])
        figures = compare(calm, rough, runs)
        cost = (rough["seconds"] - calm["seconds"]) / kills if kills else 0.0
        stalls = rough["stalls"] or [0.0]
        print(
                f"{kind}: {runs} runs x {count} pages, {1 if kind == 'sqlite' else servers} servers, "
                f"{sig.name} every {every_s:g} s: {kills} stops (exit {', '.join(f'{k:.1f}' for k in rough['kills'])} s); "
                f"undisturbed {calm['seconds']:.1f} s, disturbed {rough['seconds']:.1f} s, "
                f"{cost:.1f} s a stop; a stopped server's runs stalled {statistics.mean(stalls):.1f} s "
                f"(most {max(stalls):.1f} s); succeeded {figures['succeeded']}/{runs}, equal to undisturbed "
                f"{figures['equalToUndisturbed']}/{runs}, saw failed {figures['sawFailed']}, progress "
                f"went back {figures['progressWentBack']}; items run twice {items_twice} (undisturbed "
                f"{calm_items_twice}), pages read twice {twice} (bound "
                f"{0 if kind == 'term' else IN_FLIGHT * sum(rough['hit'])}: {IN_FLIGHT} a run x "
                f"{sum(rough['hit'])} runs stopped; undisturbed {calm_twice})",
                flush=True,
            )  # fmt: skip


def main() -> None:
    args = sys.argv[1:]
    which = args[0] if args else "all"
    runs, count, servers = (int(a) for a in (args[1:4] + ["10", "200", "3"][len(args[1:4]) :]))
    every_s = float(args[4]) if len(args) > 4 else 15.0
    with open("/proc/loadavg") as load:
        print(f"load before: {load.read().split()[:3]}", flush=True)
    for kind in ("kill", "term", "sqlite") if which == "all" else (which,):
        anyio.run(scenario, kind, runs, count, servers, every_s)
        with open("/proc/loadavg") as load:
            print(f"load after {kind}: {load.read().split()[:3]}", flush=True)


if __name__ == "__main__":
    main()
