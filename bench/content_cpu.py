"""The CPU a page's reading costs, this checkout against another commit's, in one process.

What is measured is what the conversion worker runs for every page a reading tool answers
(`render_typed` of stdlib/reading/get_page_content.py: the Markdown of the main content and
`pageType`; `render` at a commit that has no `render_typed`), with its default options, on the
saved HTML of WCXB's dev split (bench/wcxb.py fetches it; its test split is never read). Both
versions are loaded in this process (the other commit from a temporary git worktree, each with
its own modules), warmed, and run page by page, the order turned each page and each round, so
that a slow stretch of this noisy machine falls on both alike. Each round prints the CPU a page
of both and their ratio; the end, the medians and the spread of the ratios.

Run: .venv/bin/python bench/content_cpu.py --base REF [--rounds 7] [--every 25]
     (REF: a commit, e.g. 3b6a40d^, the content engine before issue #54)
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from _setup import ROOT, spread

URL = "https://example.org/"
OURS = "taskplate"


@contextmanager
def worktree(ref: str) -> Iterator[Path]:
    """The commit checked out in a temporary worktree (removed afterwards)."""
    with tempfile.TemporaryDirectory(prefix="content-cpu-") as scratch:
        folder = Path(scratch) / "base"
        git = ["git", "-C", str(ROOT)]
        subprocess.run([*git, "worktree", "add", "--detach", "-q", str(folder), ref], check=True)
        try:
            yield folder
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(folder)], check=False)


def _ours() -> dict[str, ModuleType]:
    return {n: m for n, m in sys.modules.items() if n == OURS or n.startswith(OURS + ".")}


class Side:
    """One checkout's reading, with the modules it runs with: set back in sys.modules, and its
    folder first on sys.path, before each call (its functions import by name as they run)."""

    def __init__(self, root: Path) -> None:
        self.root, self.modules = root, dict[str, ModuleType]()
        with self.active():
            from taskplate.stdlib.reading import get_page_content as reading
        assert Path(reading.__file__ or "").is_relative_to(root), reading.__file__
        self.typed = getattr(reading, "render_typed", None)
        self.reading = reading

    @contextmanager
    def active(self) -> Iterator[None]:
        for name in _ours().keys() - self.modules.keys():  # the other side's: imported anew
            del sys.modules[name]
        sys.modules.update(self.modules)
        sys.path.insert(0, str(self.root))
        try:
            yield
        finally:
            sys.path.remove(str(self.root))
            self.modules.update(_ours())  # with what this call imported, from its folder

    def read(self, html: str) -> float:
        """The CPU seconds of one page's reading."""
        with self.active():
            start = time.process_time()
            if self.typed is not None:
                self.typed(html, URL, "markdown", True)
            else:
                self.reading.render(html, URL, "markdown", True)
            return time.process_time() - start


def _under(module: ModuleType, root: Path) -> bool:
    where = getattr(module, "__file__", None) or next(iter(getattr(module, "__path__", [])), "")
    return Path(where).is_relative_to(root)


def pages(every: int) -> list[str]:
    import wcxb

    folder = wcxb.FOLDER / "dev" / "html"
    if not folder.is_dir():
        sys.exit(f"no WCXB dev split in {wcxb.FOLDER}: run bench/wcxb.py first")
    found = sorted(folder.glob("*.html.gz"))[::every]
    return [gzip.decompress(p.read_bytes()).decode("utf-8", errors="replace") for p in found]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the commit to measure against")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--every", type=int, default=25, help="every Nth dev page")
    args = parser.parse_args()
    html = pages(args.every)
    with worktree(args.base) as base:
        sides = {"base": Side(base), "this": Side(ROOT)}
        for side in sides.values():
            for page in html[:5]:  # warm: the voters' imports and caches
                side.read(page)
        names = list(sides)
        cpu: dict[str, list[float]] = {n: [] for n in names}
        for round_ in range(args.rounds):
            spent = dict.fromkeys(names, 0.0)
            for index, page in enumerate(html):
                turn = (index + round_) % 2
                for name in names[turn:] + names[:turn]:
                    spent[name] += sides[name].read(page)
            for name in names:
                cpu[name].append(spent[name] * 1000 / len(html))
            ratio = cpu["this"][-1] / cpu["base"][-1]
            print(f"round {round_ + 1}: this {cpu['this'][-1]:.1f} ms a page, "
                  f"base {cpu['base'][-1]:.1f}, {ratio:.3f}x", flush=True)  # fmt: skip
        for side in sides.values():  # no module of one side ran the other's code
            assert all(_under(m, side.root) for m in side.modules.values())
    ratios = [t / b for t, b in zip(cpu["this"], cpu["base"], strict=True)]
    this, base_ms = statistics.median(cpu["this"]), statistics.median(cpu["base"])
    print(
        f"{len(html)} pages, {args.rounds} rounds: this {this:.1f} ms a page "
        f"({spread(cpu['this'])}), {args.base} {base_ms:.1f} ({spread(cpu['base'])}); "
        f"{this / base_ms:.3f}x the base (each round's ratio {spread(ratios)}, median "
        f"{statistics.median(ratios):.3f})"
    )


if __name__ == "__main__":
    main()
