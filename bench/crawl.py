"""Crawl speed, in one run, on the generated 500-page site of tests/fixtures/crawl_site.py
(served by a process of its own, so serving takes no time from either side):

1. crawl_site (engine http) beside a minimal Scrapy spider doing the same work: start at /,
   robots.txt obeyed, every same-host link followed once, pages over 1 MB refused, at most 16
   requests at once and 8 per host (Scrapy's defaults, and taskplate's), each page's main
   content made Markdown by the same function (stdlib/reading/get_page_content.py `render`). pages/s
   counts pages read with HTTP 200, over the time from the first request to the answer
   (Scrapy: engine started to spider closed; taskplate: submit to answer, the run manager up);
2. crawl_site engine http beside engine browser on the same first 100 pages of the crawl, at
   the same concurrency, with Markdown of the main content (CPU work both engines share) and
   with each page's HTML as it came.

Rounds are interleaved, the order swapped each round; medians are compared, with their spread,
and the machine's load average is printed (others share it).

Run: .venv/bin/python bench/crawl.py [rounds]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import anyio
from _setup import ROOT, site_in_process, spread

CONCURRENCY = 16
PER_HOST = 8
MAX_PAGE_BYTES = 1_000_000
SAME = 100  # pages both engines read for the engine comparison
SAME_CONCURRENCY = 8


# -- the Scrapy side, in a process of its own (Twisted's reactor runs once per process) -----------
def scrapy_crawl(base: str) -> None:
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    from taskplate.stdlib.reading.get_page_content import render

    host = base.split("//", 1)[1]
    times: dict[str, float] = {}
    pages = [0]

    class Spider(scrapy.Spider):  # type: ignore[misc]
        name = "same_work"
        start_urls: ClassVar[list[str]] = [base + "/"]
        allowed_domains: ClassVar[list[str]] = [host.split(":")[0]]

        def parse(self, response: Any) -> Iterator[Any]:
            if not response.headers.get(b"Content-Type", b"").startswith(b"text/html"):
                return
            content, _ = render(response.text, response.url, "markdown", True)
            if response.status == 200 and content:
                pages[0] += 1
            for href in response.css("a::attr(href)").getall():
                url = response.urljoin(href).split("#", 1)[0]
                if url.startswith(base):
                    yield scrapy.Request(url, callback=self.parse)

    process = CrawlerProcess(
        settings={
            "ROBOTSTXT_OBEY": True,
            "ROBOTSTXT_PARSER": "scrapy.robotstxt.ProtegoRobotParser",
            "CONCURRENT_REQUESTS": CONCURRENCY,
            "CONCURRENT_REQUESTS_PER_DOMAIN": PER_HOST,
            "DOWNLOAD_MAXSIZE": MAX_PAGE_BYTES,
            "DOWNLOAD_WARNSIZE": 0,
            "LOG_LEVEL": "CRITICAL",  # a page over the size limit is refused, as taskplate's
            "TELNETCONSOLE_ENABLED": False,
            "RETRY_ENABLED": False,
            "USER_AGENT": "scrapy-bench",
            "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        }
    )

    def started() -> None:
        times.setdefault("start", time.perf_counter())

    def closed() -> None:
        times.setdefault("end", time.perf_counter())

    crawler = process.create_crawler(Spider)
    crawler.signals.connect(started, signals.engine_started)  # held weakly: named, kept alive
    crawler.signals.connect(closed, signals.spider_closed)
    process.crawl(crawler)
    process.start()
    print(json.dumps({"pages": pages[0], "seconds": times["end"] - times["start"]}), flush=True)


# -- taskplate's side ---------------------------------------------------------------------------
def with_scrapy(base: str) -> float:
    done = subprocess.run(
        [sys.executable, __file__, "--scrapy", base],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["pages"] >= 500, answer
    return float(answer["pages"] / answer["seconds"])


async def with_taskplate(
    base: str,
    home: Path,
    engine: str,
    pages: int,
    concurrency: int = CONCURRENCY,
    raw: bool = False,
) -> float:
    from taskplate.browser import BrowserRuntime
    from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary
    from taskplate.stdlib import REGISTRY

    runtime = BrowserRuntime()
    manager = RunManager(home, TemplateLibrary(REGISTRY).load([SHIPPED]), runtime=runtime)
    inputs = {
        "startUrl": base + "/",
        "maxDepth": 20,
        "maxPages": pages,
        "engine": engine,
        "useSitemap": False,
        "concurrency": concurrency,
        "maxPageBytes": MAX_PAGE_BYTES,
    }
    if raw:  # the page as it came: no main-content extraction, the CPU work both engines share
        inputs |= {"format": "html", "onlyMainContent": False}
    async with manager.running():
        if engine == "browser":
            await runtime.browser()  # the browser is up before timing, as Scrapy's reactor is
        start = time.perf_counter()
        run_id = await manager.submit("crawl_site", inputs, options={"timeoutMs": 900_000})
        answer = await manager.wait(run_id)
        elapsed = time.perf_counter() - start
        result = answer["result"]
        if "resultArtifactId" in result:
            result = json.loads((await manager.artifacts.read(result["resultArtifactId"])).data)
    await runtime.close()
    read = sum(1 for i in result["items"] if i["success"] and i.get("status") == 200)
    assert read >= min(pages, 500) - 5, result["summary"]
    return read / elapsed


async def main(rounds: int) -> None:
    print(f"load average before: {os.getloadavg()}", flush=True)
    with site_in_process("tests.fixtures.crawl_site") as base, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        await with_taskplate(base, home / "warm", "http", 20)  # warm-up: imports, page cache
        rows: list[dict[str, float]] = []
        for n in range(rounds):
            at = home / str(n)
            jobs: dict[str, Callable[[], Awaitable[float]]] = {
                "scrapy": partial(anyio.to_thread.run_sync, with_scrapy, base),
                "http": partial(with_taskplate, base, at / "a", "http", 5000),
                "http100": partial(with_taskplate, base, at / "b", "http", SAME, SAME_CONCURRENCY),
                "browser100": partial(
                    with_taskplate, base, at / "c", "browser", SAME, SAME_CONCURRENCY
                ),
                "http100raw": partial(
                    with_taskplate, base, at / "d", "http", SAME, SAME_CONCURRENCY, True
                ),
                "browser100raw": partial(
                    with_taskplate, base, at / "e", "browser", SAME, SAME_CONCURRENCY, True
                ),
            }
            order = list(jobs) if n % 2 == 0 else list(jobs)[::-1]
            row = {name: await jobs[name]() for name in order}
            rows.append(row)
            print(
                f"  round {n + 1}: "
                + ", ".join(f"{k} {row[k]:.1f}" for k in jobs)
                + f" pages/s; load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}

    def line(label: str, key: str) -> None:
        print(f"  {label:<44}: {med[key]:7.1f} pages/s ({spread([r[key] for r in rows])})")

    def ratio(label: str, top: str, bottom: str, target: str) -> None:
        values = [r[top] / r[bottom] for r in rows]
        print(
            f"  {label:<44}: {statistics.median(values):7.2f}  (target {target}; rounds {spread(values)})"
        )

    print(f"500-page local site, {rounds} interleaved rounds (order swapped), medians (min-max):")
    line(f"Scrapy spider, same work, concurrency {CONCURRENCY}", "scrapy")
    line(f"crawl_site engine http, concurrency {CONCURRENCY}", "http")
    ratio("ratio taskplate / Scrapy", "http", "scrapy", ">= 0.8")
    print(
        f"  the first {SAME} pages, concurrency {SAME_CONCURRENCY} for both engines, Markdown of the main content:"
    )
    line("engine http", "http100")
    line("engine browser", "browser100")
    ratio("ratio http / browser", "http100", "browser100", ">= 10")
    print("  the same, each page's HTML as it came (no main-content extraction):")
    line("engine http", "http100raw")
    line("engine browser", "browser100raw")
    ratio("ratio http / browser", "http100raw", "browser100raw", ">= 10")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--scrapy":
        scrapy_crawl(sys.argv[2])
    else:
        anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 3)
