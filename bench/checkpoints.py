"""The cost of checkpoints (#55): bench/batch.py's ratio (taskplate's batch_extract_pages beside
the hand-written Playwright script, pages/s) with every finished item checkpointed, as runs are,
beside the same with checkpoints not written (`Checkpoints._keep` a no-op, in this process
only). Rounds interleaved, the order reversed each round; medians, the rounds' spread and the
1-minute load beside them. Target: the ratio with checkpoints within 5% of the one without.
On a loaded machine the pages/s of one run vary more than that from round to round, so the
time spent keeping checkpoints is also clocked itself (`Checkpoints._keep`, on the event loop:
serializing, masking and writing each item) and printed per page and as a share of the run.

Run: .venv/bin/python bench/checkpoints.py [pages] [rounds]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from _setup import site_in_process, spread
from batch import cpu_seconds_of_tree, hand_written, through_taskplate

from taskplate.interpreter._checkpoints import Checkpoints

SPENT: list[float] = []  # seconds in Checkpoints._keep, one entry per call


def clock_checkpoints() -> None:
    kept = Checkpoints._keep

    async def clocked(self: Checkpoints, key: str, value: Any) -> None:
        start = time.perf_counter()
        await kept(self, key, value)
        SPENT.append(time.perf_counter() - start)

    Checkpoints._keep = clocked  # type: ignore[method-assign]


@contextmanager
def no_checkpoints() -> Iterator[None]:
    kept = Checkpoints._keep

    async def nothing(self: Checkpoints, key: str, value: Any) -> None:
        return None

    Checkpoints._keep = nothing  # type: ignore[method-assign]
    try:
        yield
    finally:
        Checkpoints._keep = kept  # type: ignore[method-assign]


async def without(urls: list[str], home: Path, cpu: list[float]) -> float:
    with no_checkpoints():
        return await through_taskplate(urls, home, cpu=cpu)


async def main(pages: int, rounds: int) -> None:
    with site_in_process() as base, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        urls = [f"{base}/{'article' if i % 2 else 'recipe'}.html?n={i}" for i in range(pages)]
        await hand_written(urls[:10])  # warm-up
        clock_checkpoints()
        out, loads, shares, per_page = [], [os.getloadavg()[0]], [], []
        cpu: dict[str, list[float]] = {"with": [], "without": []}
        for n in range(rounds):
            jobs = {
                "script": partial(hand_written, urls),
                "with": partial(through_taskplate, urls, home / f"with{n}", cpu=cpu["with"]),
                "without": partial(without, urls, home / f"without{n}", cpu["without"]),
            }
            order = list(jobs) if n % 2 == 0 else list(jobs)[::-1]
            got = {}
            for name in order:
                SPENT.clear()
                got[name] = await jobs[name]()
                if name == "with":
                    per_page.append(sum(SPENT) * 1000 / pages)
                    shares.append(sum(SPENT) / (pages / got[name]))
            out.append((got["script"], got["with"], got["without"]))
            loads.append(os.getloadavg()[0])
            print(
                f"  round {n + 1}: script {got['script']:.2f}, with checkpoints "
                f"{got['with']:.2f}, without {got['without']:.2f} pages/s",
                flush=True,
            )
    with_ratio = [w / s for s, w, _ in out]
    without_ratio = [wo / s for s, _, wo in out]
    cost = [w / wo for _, w, wo in out]
    print(f"{pages} local pages, {rounds} interleaved rounds (bench/batch.py's ratio)")
    print(
        f"  ratio with checkpoints         : {statistics.median(with_ratio):6.2f} "
        f"(rounds {spread(with_ratio)})"
    )
    print(
        f"  ratio without checkpoints      : {statistics.median(without_ratio):6.2f} "
        f"(rounds {spread(without_ratio)})"
    )
    print(
        f"  with / without, pages/s        : {statistics.median(cost):6.3f} "
        f"(target >= 0.95; rounds {spread(cost)}; 1-min load {spread(loads)} on "
        f"{os.cpu_count()} CPUs)"
    )
    print(
        f"  time keeping checkpoints       : {statistics.median(per_page):6.3f} ms a page, "
        f"{statistics.median(shares) * 100:.2f}% of the run's time (rounds "
        f"{spread(per_page)} ms)"
    )
    print(
        f"  CPU per page (all processes)   : with {statistics.median(cpu['with']):.0f} ms, "
        f"without {statistics.median(cpu['without']):.0f} ms"
    )


if __name__ == "__main__":
    assert cpu_seconds_of_tree  # the same clocks as bench/batch.py
    anyio.run(
        main,
        int(sys.argv[1]) if len(sys.argv) > 1 else 100,
        int(sys.argv[2]) if len(sys.argv) > 2 else 5,
    )
