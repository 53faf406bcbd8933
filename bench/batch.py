"""Throughput and overhead of the interpreter, in one run:

1. pages/second of batch_extract_pages (concurrency 5, 200 local pages, Markdown) beside the
   fastest hand-written asyncio Playwright script for the same work at the same concurrency
   (five long-lived tabs: navigate, check the status, read title and metadata, Markdown of the
   main content), and the ratio; both timings include creating the browser context. Five
   rounds, interleaved with the order swapped each round; the medians are compared (one
   12-second run on a shared 2-core machine varies by 10%). The fixture site runs in a process
   of its own, so that serving pages takes no interpreter time from either side;
2. the interpreter's own overhead per step, with a no-op action (`set {}`), against calling
   the action directly;
3. peak memory of this process and of Chromium.

Run: .venv/bin/python bench/batch.py [pages]
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from taskplate.browser import BrowserRuntime  # noqa: E402
from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary  # noqa: E402
from taskplate.stdlib import REGISTRY  # noqa: E402
from taskplate.stdlib._markdown import to_markdown  # noqa: E402

CONCURRENCY = 5
ROUNDS = 5
NOOP_STEPS = 2000
NOOP_TEMPLATE = f"""
template: noop_loop
version: 1.0.0
steps:
  - id: loop
    forEach: ${{{{ inputs.items }}}}
    concurrency: 5
    steps:
      - action: set
        with: {{}}
inputs:
  type: object
  properties:
    items: {{type: array, maxItems: {NOOP_STEPS}}}
limits: {{maxItems: {NOOP_STEPS}}}
"""


_INFO = "() => [document.title, document.documentElement.lang, (document.querySelector('meta[name=description]') || {}).content]"


def chromium_rss_mb(runtime: BrowserRuntime) -> float:
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if runtime.marker.encode() in (entry / "cmdline").read_bytes():
                for line in (entry / "status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


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


async def through_taskplate(urls: list[str], home: Path) -> tuple[float, float, str]:
    runtime = BrowserRuntime()
    manager = RunManager(home, TemplateLibrary(REGISTRY).load([SHIPPED]), runtime=runtime)
    async with manager.running():
        start = time.perf_counter()
        run_id = await manager.submit(
            "batch_extract_pages", {"urls": urls, "concurrency": CONCURRENCY, "waitFor": 1}
        )
        answer = await manager.wait(run_id)
        elapsed = time.perf_counter() - start
        chromium = chromium_rss_mb(runtime)
    await runtime.close()
    assert answer["result"]["summary"]["succeeded"] == len(urls), answer["result"]["summary"]
    return len(urls) / elapsed, chromium, answer["status"]


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


@contextmanager
def site_process() -> Iterator[str]:
    """The fixture site in a process of its own: its work is charged to neither contestant."""
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.fixtures.server"], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(timeout=10)


async def main(pages: int) -> None:
    with site_process() as base, tempfile.TemporaryDirectory() as tmp:
        urls = [f"{base}/{'article' if i % 2 else 'recipe'}.html?n={i}" for i in range(pages)]
        await hand_written(urls[:10])  # warm-up: page cache, Chromium start
        rounds = []
        for n in range(ROUNDS):  # interleaved, the order swapped each round: same conditions
            if n % 2:
                ours, chromium_mb, status = await through_taskplate(urls, Path(tmp) / f"home{n}")
                baseline = await hand_written(urls)
            else:
                baseline = await hand_written(urls)
                ours, chromium_mb, status = await through_taskplate(urls, Path(tmp) / f"home{n}")
            rounds.append((baseline, ours))
        overhead_ms, per_step_ms = await step_overhead(Path(tmp))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    baseline = statistics.median(b for b, _ in rounds)
    ours = statistics.median(o for _, o in rounds)
    ratios = ", ".join(f"{o / b:.2f}" for b, o in rounds)
    print(f"{pages} local pages, concurrency {CONCURRENCY}, Markdown of the main content")
    print(f"  hand-written Playwright script : {baseline:6.2f} pages/s (median of {ROUNDS} rounds)")
    print(f"  taskplate batch_extract_pages  : {ours:6.2f} pages/s ({status})")
    print(
        f"  ratio                          : {ours / baseline:6.2f}  (target >= 0.9; rounds: {ratios})"
    )
    print(
        f"interpreter overhead per step    : {overhead_ms:6.3f} ms  (no-op `set`, {per_step_ms:.3f} ms per step in all; target < 1 ms)"
    )
    print(
        f"peak memory                      : {peak_mb:6.0f} MB this process, {chromium_mb:.0f} MB Chromium at the end of the batch"
    )


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 200)
