"""Throughput, overhead and memory of the interpreter, in one run:

1. pages/second of batch_extract_pages (concurrency 5, local pages, Markdown) beside the
   fastest hand-written asyncio Playwright script for the same work at the same concurrency
   (five long-lived tabs: navigate, check the status, read title and metadata, Markdown of the
   main content), and the ratio; both timings include creating the browser context, both load
   every resource (blockResources off). Each clock starts with its side warm: the script's
   process has Chromium up and trafilatura imported, taskplate's run manager has Chromium up and
   its conversion worker warm, as a server has (`dsl serve` warms it as it starts). The same run
   in a manager started with it, whose worker warms during the run, is printed beside ("cold").
   Rounds interleaved with the order swapped each round; the medians are compared. The fixture
   site runs in a process of its own, so that serving pages takes no interpreter time from
   either side;
2. the same batch with blockResources on (the template's default) beside it off;
3. 8 runs of 25 pages at once through one run manager beside one such run alone (pages/s);
4. the interpreter's own overhead per step, with a no-op action (`set {}`), against calling
   the action directly;
5. the proportional memory (PSS) of Chromium's processes after 100 and after 1000 pages of
   one batch;
6. the cost of tracing: the same batch with `trace: off` beside `trace: on-failure` (Playwright
   tracing recorded all along, dropped at the end as every page succeeds) and `trace: on` (with
   the screencast film strip, kept), interleaved rounds.

Run: .venv/bin/python bench/batch.py [pages] [rounds] [trace|ratio]   (`trace`: only part 6;
     `ratio`: only parts 1 and 2)
     .venv/bin/python bench/batch.py memory   (the memory figure alone)
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import anyio
from _setup import NOOP_STEPS, NOOP_TEMPLATE, spread
from _setup import site_in_process as serve_in_process

from taskplate.browser import BrowserRuntime
from taskplate.interpreter import SHIPPED, Limits, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from taskplate.stdlib.content._markdown import to_markdown

CONCURRENCY = 5
ROUNDS = 5


_INFO = "() => [document.title, document.documentElement.lang, (document.querySelector('meta[name=description]') || {}).content]"


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def chromium_tree(runtime: BrowserRuntime) -> list[int]:
    """The runtime's Chromium and every process under it (renderers, GPU, network, zygotes):
    the browser process is the one launched with the runtime's marker argument."""
    roots = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if runtime.marker.encode() in line and b"--type=" not in line:
                roots.append(int(entry.name))
    kids, tree = _children(), []
    while roots:
        pid = roots.pop()
        tree.append(pid)
        roots.extend(kids.get(pid, []))
    return tree


def chromium_memory_mb(runtime: BrowserRuntime) -> tuple[float, float]:
    """(PSS, private) of the runtime's Chromium process tree: shared pages are split among the
    processes that map them (other Chromiums on the machine included); private ones are not."""
    pss = private = 0
    for pid in chromium_tree(runtime):
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                name, _, rest = line.partition(":")
                if name in ("Pss", "SwapPss"):
                    pss += int(rest.split()[0])
                elif name in ("Private_Clean", "Private_Dirty"):
                    private += int(rest.split()[0])
        except OSError:
            continue
    return pss / 1024, private / 1024


async def hand_written(urls: list[str]) -> float:
    """The baseline: plain Playwright, five workers each keeping one tab."""
    runtime = BrowserRuntime()
    browser = await runtime.browser()
    start = time.perf_counter()
    context = await browser.new_context()
    queue = list(urls)

    async def worker() -> None:
        page = await context.new_page()
        while queue:
            url = queue.pop()
            response = await page.goto(url)
            assert response is not None and response.status < 400
            await page.evaluate(_INFO)  # title, description, language: what get_page_info reads
            html = await page.content()
            await anyio.to_thread.run_sync(to_markdown, html, page.url, True)
        await page.close()

    async with anyio.create_task_group() as tg:
        for _ in range(CONCURRENCY):
            tg.start_soon(worker)
    elapsed = time.perf_counter() - start
    await context.close()
    await runtime.close()
    return len(urls) / elapsed


def batch_inputs(urls: list[str], block: bool) -> dict[str, object]:
    """Every page in the browser, as the script reads it (engine auto would read these static
    pages over plain HTTP)."""
    return {
        "urls": urls,
        "concurrency": CONCURRENCY,
        "engine": "browser",
        "waitFor": 1,
        "blockResources": block,
    }


def cpu_seconds_of_tree(root: int) -> float:
    """CPU time (user + system) of a process and its descendants, reaped children included:
    this process, Playwright's driver and Chromium's processes. Load slows it far less than
    it slows the wall clock."""
    parents, spent = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
        spent[int(entry.name)] = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    total, todo, seen = 0, [root], set()
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            total += spent.get(pid, 0)
            todo += [child for child, parent in parents.items() if parent == pid]
    return total / os.sysconf("SC_CLK_TCK")


async def through_taskplate(
    urls: list[str],
    home: Path,
    block: bool = False,
    trace: str = "off",
    cpu: list[float] | None = None,
    cold: bool = False,
) -> float:
    """pages/s of one batch run; `cpu` gets the CPU milliseconds it took per page. `cold`: only
    the browser is up when the clock starts, the conversion worker starts with the run."""
    runtime = BrowserRuntime()
    manager = RunManager(home, TemplateLibrary(REGISTRY).load([SHIPPED]), runtime=runtime)
    async with manager.running():
        if cold:
            await runtime.browser()  # as the hand-written script: the browser is up
        else:
            await manager.warm()  # the browser up and the conversion worker warm, as a server's
        spent = cpu_seconds_of_tree(os.getpid())
        start = time.perf_counter()
        run_id = await manager.submit(
            "batch_extract_pages", batch_inputs(urls, block), options={"trace": trace}
        )
        answer = await manager.wait(run_id)
        elapsed = time.perf_counter() - start
        if cpu is not None:
            cpu.append((cpu_seconds_of_tree(os.getpid()) - spent) * 1000 / len(urls))
    await runtime.close()
    assert answer["result"]["summary"]["succeeded"] == len(urls), answer["result"]["summary"]
    return len(urls) / elapsed


async def many_runs(manager: RunManager, urls: list[str], runs: int) -> float:
    """pages/s of `runs` batches of these pages submitted at once to one manager."""
    start = time.perf_counter()
    ids = [
        await manager.submit("batch_extract_pages", batch_inputs(urls, True)) for _ in range(runs)
    ]
    for run_id in ids:
        answer = await manager.wait(run_id)
        assert answer["status"] == "succeeded", answer.get("error")
    return runs * len(urls) / (time.perf_counter() - start)


async def concurrent_runs(urls: list[str], home: Path, rounds: int) -> list[tuple[float, float]]:
    """(one run alone, 8 runs at once) pages/s per round, through one warm manager."""
    runtime = BrowserRuntime()
    library = TemplateLibrary(REGISTRY).load([SHIPPED])
    limits = Limits(max_concurrent_runs=8)
    manager = RunManager(home, library, runtime=runtime, limits=limits)
    out = []
    async with manager.running():
        await many_runs(manager, urls[:5], 1)  # warm: browser started, pages cached
        for n in range(rounds):
            if n % 2:
                eight = await many_runs(manager, urls, 8)
                alone = await many_runs(manager, urls, 1)
            else:
                alone = await many_runs(manager, urls, 1)
                eight = await many_runs(manager, urls, 8)
            out.append((alone, eight))
    await runtime.close()
    return out


async def memory_over_a_long_batch(
    base: str, home: Path, pages: int
) -> tuple[list[tuple[int, float, float]], float]:
    """(pages done, PSS MB, private MB) of Chromium's tree after 100 pages and after the last
    window started (its tabs still open: at the very end they are closed, which would flatter
    the figure), and the highest PSS seen from page 100 on (sampled every 2 s)."""
    urls = [f"{base}/{'article' if i % 2 else 'recipe'}.html?m={i}" for i in range(pages)]
    runtime = BrowserRuntime()
    manager = RunManager(home, TemplateLibrary(REGISTRY).load([SHIPPED]), runtime=runtime)
    marks, seen, peak, next_peak = [100, pages - CONCURRENCY], [], 0.0, 0.0
    async with manager.running():
        run_id = await manager.submit(
            "batch_extract_pages", batch_inputs(urls, True), options={"timeoutMs": 3_600_000}
        )
        while True:
            described = await manager.describe(run_id)
            done = described.get("progress", {}).get("items", {}).get("done", 0)
            if described["status"] not in ("queued", "running"):
                break
            due = marks and done >= marks[0]
            if due or (done >= 100 and time.monotonic() >= next_peak):
                sample = chromium_memory_mb(runtime)  # reads /proc: not too often
                peak, next_peak = max(peak, sample[0]), time.monotonic() + 2
                while marks and done >= marks[0]:
                    seen.append((marks.pop(0), *sample))
            # Near the last mark, look often: the last window's pages may all end within 0.1 s.
            near = marks and done >= marks[0] - 2 * CONCURRENCY
            await anyio.sleep(0.01 if near else 0.1)
    await runtime.close()
    assert described["status"] == "succeeded", described
    assert len(seen) == 2, seen
    return seen, peak


async def step_overhead(home: Path) -> tuple[float, float]:
    folder = home / "noop"
    folder.mkdir()
    (folder / "noop.yaml").write_text(NOOP_TEMPLATE)
    library = TemplateLibrary(REGISTRY).load([folder])
    assert not library.rejected, library.rejected
    spec = REGISTRY["set"]
    assert spec.run is not None
    start = time.perf_counter()
    for _ in range(NOOP_STEPS):
        await spec.run(None, {})
    direct = (time.perf_counter() - start) / NOOP_STEPS * 1000
    manager = RunManager(home / "noop-home", library)
    async with manager.running():
        start = time.perf_counter()
        answer = await manager.wait(
            await manager.submit("noop_loop", {"items": list(range(NOOP_STEPS))})
        )
        per_step = (time.perf_counter() - start) / NOOP_STEPS * 1000
    assert answer["status"] == "succeeded"
    return per_step - direct, per_step


async def trace_cost(urls: list[str], home: Path, rounds: int) -> None:
    """pages/s with trace off, on-failure and on, interleaved (order reversed each round)."""
    out = []
    loads = [os.getloadavg()[0]]
    modes = ("off", "on-failure", "on")
    cpu: dict[str, list[float]] = {mode: [] for mode in modes}
    for n in range(rounds):
        jobs = {
            mode: partial(through_taskplate, urls, home / f"t-{mode}{n}", True, mode, cpu[mode])
            for mode in modes
        }
        order = list(jobs) if n % 2 == 0 else list(jobs)[::-1]
        got = {mode: await jobs[mode]() for mode in order}
        out.append((got["off"], got["on-failure"], got["on"]))
        loads.append(os.getloadavg()[0])
        print(
            f"  trace round {n + 1}: off {got['off']:.2f}, on-failure {got['on-failure']:.2f}, "
            f"on {got['on']:.2f}",
            flush=True,
        )
    off = statistics.median(r[0] for r in out)
    on = statistics.median(r[1] for r in out)
    full = statistics.median(r[2] for r in out)
    ratios = [r[1] / r[0] for r in out]
    full_ratios = [r[2] / r[0] for r in out]
    print(
        f"tracing, {len(urls)} pages (blockResources on): trace off {off:6.2f} pages/s, "
        f"on-failure {on:6.2f} pages/s, on {full:6.2f} pages/s (medians of {rounds} rounds)"
    )
    print(
        f"  on-failure / off               : {statistics.median(ratios):6.2f}  "
        f"(target >= 0.90; rounds {spread(ratios)}; 1-min load {spread(loads)} on "
        f"{os.cpu_count()} CPUs)"
    )
    print(
        f"  on / off                       : {statistics.median(full_ratios):6.2f}  "
        f"(rounds {spread(full_ratios)})"
    )
    cpu_off, cpu_on, cpu_full = (statistics.median(cpu[m]) for m in modes)
    print(
        f"  CPU per page (all processes)   : off {cpu_off:.0f} ms, on-failure {cpu_on:.0f} ms "
        f"({cpu_on / cpu_off:.2f}x), on {cpu_full:.0f} ms ({cpu_full / cpu_off:.2f}x); rounds "
        f"off {spread(cpu['off'])}, on-failure {spread(cpu['on-failure'])}, on {spread(cpu['on'])}"
    )


async def main(pages: int, rounds: int, only: str | None = None) -> None:
    with serve_in_process() as base, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        urls = [f"{base}/{'article' if i % 2 else 'recipe'}.html?n={i}" for i in range(pages)]
        await hand_written(urls[:10])  # warm-up: page cache, Chromium start
        if only == "trace":
            await trace_cost(urls, home, rounds)
            return
        rounds_out = []
        for n in range(rounds):  # interleaved, the order swapped each round: same conditions
            contest = [
                partial(hand_written, urls),
                partial(through_taskplate, urls, home / f"off{n}"),
                partial(through_taskplate, urls, home / f"on{n}", block=True),
                partial(through_taskplate, urls, home / f"cold{n}", cold=True),
            ]
            order = contest if n % 2 == 0 else contest[::-1]
            timings = {id(job): await job() for job in order}
            rounds_out.append(tuple(timings[id(job)] for job in contest))
            print(f"  round {n + 1}: " + ", ".join(f"{t:.2f}" for t in rounds_out[-1]), flush=True)
        if only == "ratio":
            print_ratio(pages, rounds, rounds_out)
            return
        together = await concurrent_runs(urls[:25], home / "eight", rounds)
        overhead_ms, per_step_ms = await step_overhead(home)
        memory = await memory_over_a_long_batch(base, home / "memory", 1000)
        await trace_cost(urls, home, rounds)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print_ratio(pages, rounds, rounds_out)
    eight_ratios = [e / a for a, e in together]
    alone = statistics.median(a for a, _ in together)
    eight = statistics.median(e for _, e in together)
    print(
        f"8 runs of 25 pages at once       : {eight:6.2f} pages/s beside {alone:.2f} for one run "
        f"alone: {statistics.median(eight_ratios):.2f}x (target >= 0.8; rounds {spread(eight_ratios)})"
    )
    print(
        f"interpreter overhead per step    : {overhead_ms:6.3f} ms  "
        f"(no-op `set`, {per_step_ms:.3f} ms per step in all; target < 0.3 ms)"
    )
    (first, pss_100, own_100), (last, pss_end, own_end) = memory[0]
    print(
        f"Chromium memory, one batch       : PSS {pss_100:.0f} MB after {first} pages, "
        f"{pss_end:.0f} MB after {last} of 1000 ({pss_end / pss_100:.2f}x, target <= 1.2x; "
        f"highest from page 100 on {memory[1]:.0f} MB); "
        f"private {own_100:.0f} MB and {own_end:.0f} MB"
    )
    print(f"peak memory of this process     : {peak_mb:6.0f} MB")


def print_ratio(pages: int, rounds: int, rounds_out: list[tuple[float, ...]]) -> None:
    baseline, ours, blocked, cold = (statistics.median(r[i] for r in rounds_out) for i in range(4))
    ratios = [r[1] / r[0] for r in rounds_out]
    block_ratios = [r[2] / r[1] for r in rounds_out]
    cold_ratios = [r[3] / r[0] for r in rounds_out]
    print(f"{pages} local pages, concurrency {CONCURRENCY}, Markdown of the main content")
    print(f"  hand-written Playwright script : {baseline:6.2f} pages/s (median of {rounds} rounds)")
    print(f"  taskplate batch_extract_pages  : {ours:6.2f} pages/s (blockResources off)")
    print(
        f"  ratio                          : {statistics.median(ratios):6.2f}  "
        f"(target >= 1.0; rounds {spread(ratios)})"
    )
    print(
        f"  with blockResources on         : {blocked:6.2f} pages/s, "
        f"{statistics.median(block_ratios):.2f}x off (rounds {spread(block_ratios)})"
    )
    print(
        f"  cold: a manager started with it: {cold:6.2f} pages/s, "
        f"{statistics.median(cold_ratios):.2f}x the script (rounds {spread(cold_ratios)}; its "
        "conversion worker warms during the run)"
    )
    print(f"  load average {os.getloadavg()[0]:.1f} at the end")


async def memory_only() -> None:
    with serve_in_process() as base, tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        (first, pss_1, own_1), (last, pss_2, own_2) = (
            memory := await memory_over_a_long_batch(base, Path(tmp), 1000)
        )[0]
    print(
        f"Chromium memory, one batch of 1000 pages ({time.perf_counter() - start:.0f} s): "
        f"PSS {pss_1:.0f} MB after {first} pages, {pss_2:.0f} MB after {last} "
        f"({pss_2 / pss_1:.2f}x, target <= 1.2x; highest from page 100 on {memory[1]:.0f} MB); "
        f"private {own_1:.0f} MB and {own_2:.0f} MB"
    )


if __name__ == "__main__" and sys.argv[1:] == ["memory"]:
    anyio.run(memory_only)
elif __name__ == "__main__":
    anyio.run(
        main,
        int(sys.argv[1]) if len(sys.argv) > 1 else 200,
        int(sys.argv[2]) if len(sys.argv) > 2 else 5,
        sys.argv[3] if len(sys.argv) > 3 else None,
    )
