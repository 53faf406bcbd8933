"""What a hostile site's bytes cost a `dsl serve`: its peak resident memory over the resident
size before, while decompression bombs of each encoding, an endless page and sitemap bombs are
read through scrape, fetch, read_page, sitemap, batch_extract_pages and crawl_site (#40 item 3).

Each round is a fresh server on a fresh home, warmed on a calm page first; the bound is 100 MB.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import _setup
import anyio

from tests.fixtures.hostile_site import ENCODINGS, bomb, serve_hostile_site
from tests.server.test_hostile_bytes import HOSTILE, every_path, reset_peak, status
from tests.server.wire import stdio_wire


async def main(rounds: int) -> None:
    for name in ENCODINGS:
        bomb(name)
    grown: list[float] = []
    with serve_hostile_site() as site:
        for _round in range(rounds):
            with tempfile.TemporaryDirectory() as home:
                async with stdio_wire(Path(home), "2025-11-25") as wire:
                    await wire.start()
                    pid = wire.process.pid
                    await every_path(wire, site, ["/calm"], ("http",))
                    before = reset_peak(pid)
                    started = time.perf_counter()
                    await every_path(wire, site, HOSTILE, ("http", "auto"))
                    grown.append((status(pid)["VmHWM"] - before) / 2**20)
                    print(
                        f"grew {grown[-1]:.1f} MB over {before / 2**20:.0f} MB"
                        f" in {time.perf_counter() - started:.1f} s",
                        flush=True,
                    )
    print(f"growth over {rounds} rounds: {_setup.spread(grown)} MB (bound: 100 MB)")


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 3)
