"""Main-content quality and speed on the real pages of ../shared/data/article-extraction/.

Serves the 90 saved pages over HTTPS on 127.0.0.1 (a throw-away self-signed certificate, made
with `openssl`), reads them all through the product path (one `batch_extract_pages` run with
its default options, real Chromium, nothing else reachable), and scores the result with the
benchmark's metric beside the same pipeline and the alternatives run directly on the saved HTML,
per fold and in all.
Scored text of a Markdown answer = what a reader of the rendered Markdown sees (CommonMark,
markdown-it-py): text and link text, not URLs, not images.

Run: .venv/bin/python bench/content.py [quality] [rendered] | loop   (TASKPLATE_ARTICLE_DATA
overrides the data folder; `quality`: F1 only, no speed; `rendered`: the rules cross-validated
on the pages as Chromium rendered them, read by a second pass with format html, instead of the
saved HTML; `loop`: only the event loop's lag while pages turn into Markdown)
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import lxml.html
from _setup import ROOT
from markdown_it import MarkdownIt

from taskplate.browser import BrowserConfig, BrowserRuntime
from taskplate.stdlib import _boilerplate as boilerplate
from taskplate.stdlib import _content as content
from taskplate.stdlib import _voters as voters
from taskplate.stdlib._markdown import to_markdown

DATA = Path(
    os.environ.get("TASKPLATE_ARTICLE_DATA", ROOT.parent / "shared" / "data" / "article-extraction")
)


def shingles(text: str) -> Counter[tuple[str, ...]]:
    tokens = re.findall(r"\w+", text or "")
    return Counter(tuple(tokens[i : i + 4]) for i in range(max(0, len(tokens) - 3)))


def score(predicted: dict[str, str], truth: dict[str, str]) -> tuple[float, float, float]:
    """The benchmark's metric: per-page 4-shingle TP/FP/FN normalised, then mean P and R."""
    precisions, recalls = [], []
    for key, expected in truth.items():
        got, want = shingles(predicted.get(key, "")), shingles(expected)
        tp, fp, fn = (
            sum((got & want).values()),
            sum((got - want).values()),
            sum((want - got).values()),
        )
        total = tp + fp + fn
        if total == 0:
            continue
        tp, fp, fn = tp / total, fp / total, fn / total
        if tp + fp > 0:
            precisions.append(tp / (tp + fp))
        if tp + fn > 0:
            recalls.append(tp / (tp + fn))
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls) if recalls else 0.0
    return (2 * p * r / (p + r) if p + r else 0.0), p, r


_RENDERER = MarkdownIt("commonmark", {"html": False}).enable("table")


def visible(markdown: str) -> str:
    """What a reader of the rendered Markdown sees: text and link text; no URLs, no images."""
    html = _RENDERER.render(markdown)
    return lxml.html.fromstring(f"<div>{html}</div>").text_content() if html.strip() else ""


def load() -> tuple[dict[str, str], dict[str, bytes], dict[str, str]]:
    truth = json.loads((DATA / "ground-truth.json").read_text(encoding="utf-8"))
    pages = {k: gzip.decompress((DATA / "html" / f"{k}.html.gz").read_bytes()) for k in truth}
    return (
        {k: v["articleBody"] for k, v in truth.items()},
        pages,
        {k: v["url"] for k, v in truth.items()},
    )


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a page left before its answer was written: nothing to report


def serve(pages: dict[str, bytes], folder: Path) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = pages.get(self.path.strip("/").removesuffix(".html"))
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

    server = _QuietServer(("127.0.0.1", 0), Handler)
    server.socket = _tls(folder).wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _tls(folder: Path) -> ssl.SSLContext:
    """A throw-away self-signed certificate for 127.0.0.1: the pages were saved from https sites
    and some of their scripts send an http visitor to https, so they are served over TLS."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    if shutil.which("openssl") is None:
        sys.exit("bench/content.py needs the openssl command: apt-get install -y openssl")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


RUN_PAGES = 30


async def through_product(
    base: str, keys: list[str], both: bool
) -> tuple[dict[str, str], float, dict[str, bytes]]:
    """Markdown of every page through the product path: one `batch_extract_pages` run with its
    default options (the run manager an MCP call reaches, warm as a server is); and, from a
    second run (format html, onlyMainContent false), the pages as Chromium rendered them, for
    the cross-validation of the rules on what the product reads. Only the browser is set up
    for the bench: it accepts the bench's self-signed certificate, and nothing but this machine
    resolves (the saved pages reference the live web; their requests fail as on a machine
    without it, the same on every run)."""
    from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary
    from taskplate.stdlib import REGISTRY

    rules = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
    runtime = BrowserRuntime(BrowserConfig(extra_args=("--ignore-certificate-errors", rules)))
    urls = [f"{base}/{key}.html" for key in keys]
    with tempfile.TemporaryDirectory() as home:
        manager = RunManager(Path(home), TemplateLibrary(REGISTRY).load([SHIPPED]), runtime=runtime)
        async with manager.running():
            await manager.warm()

            async def batch(**inputs: object) -> tuple[list[dict[str, Any]], float]:
                """Runs of RUN_PAGES pages (each well within the template's maxTimeoutMs on a
                loaded machine), one after the other."""
                items, start = [], time.perf_counter()
                for first in range(0, len(urls), RUN_PAGES):
                    part = urls[first : first + RUN_PAGES]
                    run_id = await manager.submit("batch_extract_pages", {"urls": part, **inputs})
                    answer = await manager.wait(run_id)
                    result = answer.get("result") or {}
                    if "resultArtifactId" in result:  # a large result is an artifact, as any
                        chunk = await manager.artifacts.read(result["resultArtifactId"])
                        result = json.loads(chunk.data)
                    if len(result.get("items", [])) != len(part):
                        sys.exit(
                            f"batch_extract_pages ended {answer['status']}: {answer.get('error')}"
                        )
                    items += result["items"]
                elapsed = time.perf_counter() - start
                print(f"batch_extract_pages {inputs}: {elapsed:.0f} s", file=sys.stderr)
                return items, elapsed

            items, elapsed = await batch()
            rendered = (await batch(format="html", onlyMainContent=False))[0] if both else []
    await runtime.close()
    out = {}
    for key, item in zip(keys, items, strict=True):
        out[key] = item.get("content") or ""
        if not item["success"] or item.get("warnings"):
            print(f"  {key[:12]}: {item.get('error') or item.get('warnings')}", file=sys.stderr)
    html = {k: (i.get("content") or "").encode() for k, i in zip(keys, rendered, strict=False)}
    return out, elapsed / len(keys) * 1000, html


def direct(
    name: str, extract: Callable[[str, str], str], pages: dict[str, bytes], urls: dict[str, str]
) -> tuple[str, dict[str, str], float]:
    start = time.perf_counter()
    out = {k: extract(pages[k].decode("utf-8", errors="replace"), urls[k]) or "" for k in pages}
    return name, out, (time.perf_counter() - start) / len(pages) * 1000


# --- Cross-validation -------------------------------------------------------------------------

FOLDS = 5


def folds(keys: list[str]) -> list[list[str]]:
    """Five fixed folds: the pages sorted by id, dealt round-robin (ids are content hashes)."""
    ordered = sorted(keys)
    return [ordered[i::FOLDS] for i in range(FOLDS)]


def references() -> dict[str, Callable[[str, str], str]]:
    """The extractors alone, each one of the voters: shown per fold beside the candidates."""
    import trafilatura

    def single(**options: object) -> Callable[[str, str], str]:
        return lambda h, u: trafilatura.extract(h, url=u, include_comments=False, **options) or ""

    return {
        "trafilatura (balanced)": single(),
        "trafilatura (fast)": single(fast=True),
        "trafilatura (precision, fast)": single(favor_precision=True, fast=True),
        "readability (trafilatura's)": lambda h, u: voters._readability(
            lxml.html.document_fromstring(h)
        ),
    }


def rules_name(rules: content.Rules) -> str:
    cleanups = f" + {'+'.join(rules.cleanups)}" if rules.cleanups else ""
    voters = "+".join(_SHORT_NAMES[v] for v in rules.voters)
    count = len(rules.voters)
    if rules.pair != "apart":
        voters = voters.replace(
            "traf+prec", f"(traf {'or' if rules.pair == 'either' else 'and'} prec)"
        )
        count -= 1
    links = f", links>{rules.links:.0%} all votes" if rules.links is not None else ""
    return f"{voters} {rules.votes}/{count}{', context' if rules.context else ''}{links}{cleanups}"


_SHORT_NAMES = {"trafilatura": "traf", "precision": "prec", "readability": "read", "justext": "jt"}
THREE = ("trafilatura", "precision", "readability")


def candidate_rules() -> list[content.Rules]:
    """Every choice of the pipeline (stdlib/_content.py Rules): the voters (the three
    extractors alone, or with jusText's rules on the blocks), the votes a block needs, the
    short-block context, each clean-up taken away from or added to the shipped DEFAULT alone,
    the share of link text from which a block needs every vote; so each rule's own gain is
    visible. Ties on the training folds go to the candidate listed first."""
    shipped = content.DEFAULT
    found = [
        replace(shipped, voters=voters, votes=v, context=c)
        for voters in (THREE, content.VOTERS)
        for v in range(2, len(voters) + 1)
        for c in (False, True)
    ]
    # each clean-up of the shipped rules taken away alone, each other one added alone, none
    for name in boilerplate.CLEANUPS:
        others = tuple(c for c in shipped.cleanups if c != name)
        found.append(
            replace(shipped, cleanups=others if name in shipped.cleanups else (*others, name))
        )
    found.append(replace(shipped, cleanups=()))
    # lines of link text needing every vote: from which share of link text, or never
    found += [replace(shipped, links=links) for links in (None, 0.5, 0.8, 0.9)]
    first_pipeline = replace(shipped, voters=THREE, votes=2, cleanups=(), links=None)
    found.append(first_pipeline)
    # trafilatura's two modes read one parse and fail together: one vote between them
    found += [
        replace(shipped, pair=pair, votes=votes, cleanups=cleanups)
        for pair in ("either", "both")
        for votes in (2, 3)
        for cleanups in (shipped.cleanups, (*shipped.cleanups, "comment_threads"))
    ]
    unique: dict[str, content.Rules] = {}
    for rules in found:
        unique.setdefault(rules_name(rules), rules)
    return list(unique.values())


def candidates() -> dict[str, Callable[[str, str], str]]:
    def vote(rules: content.Rules) -> Callable[[str, str], str]:
        return lambda h, u: visible(to_markdown(h, u, rules=rules)[0])

    return {rules_name(rules): vote(rules) for rules in candidate_rules()}


def cross_validate(
    truth: dict[str, str], pages: dict[str, bytes], urls: dict[str, str]
) -> tuple[list[float], list[str], dict[str, list[float]]]:
    """Per fold: the candidate best on the other four folds, scored on this one."""
    results = {name: direct(name, f, pages, urls)[1] for name, f in candidates().items()}
    shown = {name: direct(name, f, pages, urls)[1] for name, f in references().items()}
    parts = folds(list(truth))
    per_fold = {
        name: [score({k: out[k] for k in part}, {k: truth[k] for k in part})[0] for part in parts]
        for name, out in (shown | results).items()
    }
    scores, chosen = [], []
    for index, _part in enumerate(parts):
        train = [k for j, p in enumerate(parts) if j != index for k in p]
        best = max(
            results,
            key=lambda name: score(
                {k: results[name][k] for k in train}, {k: truth[k] for k in train}
            )[0],
        )
        chosen.append(best)
        scores.append(per_fold[best][index])
    return scores, chosen, per_fold


def report_folds(truth: dict[str, str], outputs: dict[str, dict[str, str]]) -> None:
    """Each pipeline's F1 per fixed fold, its mean and worst fold; the product path's gap to
    the saved-HTML pipeline per fold. The product path runs the shipped rules: where the
    cross-validation below chooses them on every fold, these are its cross-validated figures."""
    parts = folds(list(truth))
    print(f"\nper fold ({FOLDS} fixed folds, the same as the cross-validation's)")
    per = {}
    for name, out in outputs.items():
        per[name] = [
            score({k: out[k] for k in part}, {k: truth[k] for k in part})[0] for part in parts
        ]
        shown = " ".join(f"{f:.3f}" for f in per[name])
        print(f"  {name:<52} {shown}  mean {sum(per[name]) / FOLDS:.3f} worst {min(per[name]):.3f}")
    product, saved, *_ = per.values()
    gaps = [a - b for a, b in zip(product, saved, strict=True)]
    print(
        f"  product path minus saved HTML per fold: {' '.join(f'{g:+.3f}' for g in gaps)};"
        f" mean {sum(gaps) / FOLDS:+.3f}"
    )


def report_cross_validation(
    truth: dict[str, str], pages: dict[str, bytes], urls: dict[str, str], rendered: bool
) -> None:
    scores, chosen, per_fold = cross_validate(truth, pages, urls)
    what = "the pages as Chromium rendered them" if rendered else "the saved HTML"
    print(f"\n{FOLDS}-fold cross-validation on {what} (fixed folds; every candidate's F1 per fold)")
    print(f"{'candidate':<60} {'folds':<36} {'mean':>6} {'worst':>6}")
    for name, fold_scores in per_fold.items():
        shown = " ".join(f"{f:.3f}" for f in fold_scores)
        print(f"{name:<60} {shown:<36} {sum(fold_scores) / FOLDS:6.3f} {min(fold_scores):6.3f}")
    print("\nchosen on four folds, scored on the fifth:")
    for index, (name, f1) in enumerate(zip(chosen, scores, strict=True)):
        print(f"  fold {index + 1}: {f1:.3f}  ({name})")
    print(f"  cross-validated F1: mean {sum(scores) / FOLDS:.3f}, worst {min(scores):.3f}")
    print("  (ties on four folds go to the candidate listed first)")
    shipped = content.DEFAULT
    mean = {name: sum(f) / FOLDS for name, f in per_fold.items()}
    print(
        f"\nshipped (stdlib/_content.py DEFAULT): {rules_name(shipped)};"
        f" mean of its fold F1s {mean[rules_name(shipped)]:.3f} (fixed on all pages: not cross-validated)"
    )
    print("each rule of it taken away alone (mean of the fold F1s without it):")
    without = {
        f"{shipped.votes} votes (the others instead)": [
            replace(shipped, votes=v)
            for v in range(2, len(shipped.voters) + 1)
            if v != shipped.votes
        ],
        "context": [replace(shipped, context=not shipped.context)],
        "jusText's rules as a voter (3 voters, 2 votes)": [replace(shipped, voters=THREE, votes=2)],
        "lines of link text needing every vote": [replace(shipped, links=None)],
    } | {
        name: [replace(shipped, cleanups=tuple(c for c in shipped.cleanups if c != name))]
        for name in shipped.cleanups
    }
    for rule, variants in without.items():
        shown = ", ".join(f"{mean[rules_name(v)]:.3f}" for v in variants)
        print(f"  {rule:<48} {shown}")


# --- Speed ------------------------------------------------------------------------------------

ROUNDS = 5


def report_speed(pages: dict[str, bytes], urls: dict[str, str]) -> None:
    """CPU ms per page of taskplate's selection and Markdown beside trafilatura's own text and
    Markdown (its defaults), on the same pages: the median of interleaved rounds, with the
    spread. CPU time of this process (time.process_time), not wall time: the machine is
    shared, and the time other programs take is not the conversion's."""
    import trafilatura

    from taskplate.stdlib._markdown import select

    voters._stopwords()  # loaded once per process, as in a server
    ways: dict[str, Callable[[str, str], object]] = {
        "trafilatura text": lambda h, u: trafilatura.extract(h, url=u),
        "trafilatura markdown": lambda h, u: trafilatura.extract(
            h, url=u, output_format="markdown"
        ),
        "taskplate selection": lambda h, u: select(h, u, True),
        "taskplate markdown": lambda h, u: to_markdown(h, u),
    }
    texts = {k: v.decode("utf-8", errors="replace") for k, v in pages.items()}
    times: dict[str, list[float]] = {name: [] for name in ways}
    names = list(ways)
    for _ in range(ROUNDS):
        spent = dict.fromkeys(names, 0.0)
        # Interleaved page by page, in a rotating order: the load of a shared machine drifts
        # over seconds, and every way of one page meets the same load.
        for index, (key, html) in enumerate(texts.items()):
            for name in names[index % len(names) :] + names[: index % len(names)]:
                start = time.process_time()
                ways[name](html, urls[key])
                spent[name] += time.process_time() - start
        for name in names:
            times[name].append(spent[name] / len(texts) * 1000)
    median = {name: statistics.median(t) for name, t in times.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"\nspeed, CPU ms per page, median of {ROUNDS} interleaved rounds (min-max);"
        f" load average {load:.1f} on {os.cpu_count()} cores"
    )
    for name, t in times.items():
        print(f"  {name:<24} {median[name]:7.1f}  ({min(t):.1f}-{max(t):.1f})")

    def ratios(mine: str, theirs: str) -> str:
        r = [a / b for a, b in zip(times[mine], times[theirs], strict=True)]
        return f"{statistics.median(r):.2f} (rounds {min(r):.2f}-{max(r):.2f})"

    print(f"  selection / trafilatura text:    {ratios('taskplate selection', 'trafilatura text')}")
    print(
        f"  markdown / trafilatura markdown: {ratios('taskplate markdown', 'trafilatura markdown')}"
    )


async def loop_lag(
    texts: list[tuple[str, str]], offload: str, at_once: int
) -> tuple[float, float, float, float]:
    """(worst, 99th and 50th-percentile delay of a 1 ms ticker in ms, ms per page) while the
    pages are turned into Markdown, at_once at a time, through the given offload: "thread", or
    "worker", the shipped way (`convert` in a runtime's warm worker process); "none" waits 50 ms
    per page instead: the ticker's delays on this machine without the work."""
    from taskplate.stdlib._conversion import conversion_workers, convert
    from taskplate.stdlib.get_page_content import render

    lags: list[float] = []
    done = anyio.Event()

    async def tick() -> None:
        while not done.is_set():
            before = time.perf_counter()
            await anyio.sleep(0.001)
            lags.append((time.perf_counter() - before) * 1000 - 1)

    async def convert_all(part: list[tuple[str, str]]) -> None:
        for html, url in part:
            if offload == "none":  # the machine's own noise: the ticker alone
                await anyio.sleep(0.05)
            elif offload == "thread":
                await anyio.to_thread.run_sync(render, html, url, "markdown", True)
            else:
                await convert(render, html, url, "markdown", True)

    async with conversion_workers() if offload == "worker" else nullcontext():
        if offload == "worker":  # the runtime's worker started and warm before measuring
            from taskplate.stdlib import _conversion

            await convert(render, *texts[0], "markdown", True)
            while _conversion._workers is None or not _conversion._workers.ready:
                await anyio.sleep(0.05)
        start = time.perf_counter()
        async with anyio.create_task_group() as group:
            group.start_soon(tick)
            async with anyio.create_task_group() as workers:
                for first in range(at_once):
                    workers.start_soon(convert_all, texts[first::at_once])
            done.set()
        per_page = (time.perf_counter() - start) / len(texts) * 1000
    lags.sort()
    return lags[-1], lags[int(len(lags) * 0.99)], lags[len(lags) // 2], per_page


def report_loop(pages: dict[str, bytes], urls: dict[str, str]) -> None:
    texts = [(v.decode("utf-8", errors="replace"), urls[k]) for k, v in pages.items()]
    print("\nevent loop while pages turn into Markdown (1 ms ticker; delays in ms)")
    print("  (worker: the shipped way, the runtime's warm worker process; thread: the old way)")
    print(
        f"  {'offload':<8} {'at once':>7} {'worst delay':>12} {'p99 delay':>10} {'p50 delay':>10}"
        f" {'ms/page':>8}"
    )
    for at_once in (1, 2):
        for offload in ("none", "thread", "worker"):
            worst, p99, p50, per_page = anyio.run(loop_lag, texts, offload, at_once)
            print(
                f"  {offload:<8} {at_once:>7} {worst:12.1f} {p99:10.1f} {p50:10.1f} {per_page:8.1f}"
            )


def main() -> None:
    if not (DATA / "ground-truth.json").exists():
        print(f"no data at {DATA}; set TASKPLATE_ARTICLE_DATA")
        return
    if sys.argv[1:] == ["loop"]:  # only the event loop's lag
        _, pages, urls = load()
        report_loop(pages, urls)
        return
    import trafilatura
    from readability import Document

    truth, pages, urls = load()
    folder = tempfile.TemporaryDirectory()
    server = serve(pages, Path(folder.name))
    base = f"https://127.0.0.1:{server.server_address[1]}"
    rows = []
    on_rendered = "rendered" in sys.argv[1:]
    markdown, ms, rendered = anyio.run(through_product, base, list(truth), on_rendered)
    rows.append(
        (
            "taskplate, batch_extract_pages (the product path)",
            {k: visible(v) for k, v in markdown.items()},
            ms,
        )
    )
    rows.append(("  same, scored on the raw Markdown (URLs count)", markdown, ms))
    rows.append(
        direct(
            "taskplate markdown, on the saved HTML",
            lambda h, u: visible(to_markdown(h, u)[0]),
            pages,
            urls,
        )
    )
    rows.append(
        direct(
            "trafilatura 2 (defaults, text)",
            lambda h, u: trafilatura.extract(h, url=u) or "",
            pages,
            urls,
        )
    )
    rows.append(
        direct(
            "trafilatura 2 (no comments, text)",
            lambda h, u: trafilatura.extract(h, url=u, include_comments=False) or "",
            pages,
            urls,
        )
    )
    rows.append(
        direct(
            "readability-lxml",
            lambda h, u: lxml.html.fromstring(Document(h).summary()).text_content(),
            pages,
            urls,
        )
    )
    rows.append(
        direct("whole page text", lambda h, u: lxml.html.fromstring(h).text_content(), pages, urls)
    )
    server.shutdown()
    print(f"{len(truth)} pages from {DATA}")
    print(f"{'pipeline':<52} {'F1':>6} {'P':>6} {'R':>6} {'ms/page':>8}")
    for name, predicted, ms in rows:
        f1, p, r = score(predicted, truth)
        print(f"{name:<52} {f1:6.3f} {p:6.3f} {r:6.3f} {ms:8.1f}")
    browser_f1, saved_f1 = score(rows[0][1], truth)[0], score(rows[2][1], truth)[0]
    print(f"product path minus saved HTML: {browser_f1 - saved_f1:+.3f}")
    for key in truth:  # where the two differ, to look at by hand
        one = {key: truth[key]}
        chromium, saved = (
            score({key: rows[0][1][key]}, one)[0],
            score({key: rows[2][1][key]}, one)[0],
        )
        if abs(chromium - saved) > 0.05:
            print(f"  {key[:12]}: product path {chromium:.3f}, saved HTML {saved:.3f}")
    report_folds(truth, {name: out for name, out, _ in rows if not name.startswith(" ")})
    report_cross_validation(truth, rendered if on_rendered else pages, urls, on_rendered)
    if "quality" not in sys.argv[1:]:
        report_speed(pages, urls)
        report_loop(pages, urls)


if __name__ == "__main__":
    main()
