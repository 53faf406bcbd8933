"""Main-content quality and speed on real pages of several corpora, through the product path.

The corpora: the 90 pages of ../shared/data/article-extraction/ ("article") and each corpus
bench/corpora.py fetched into the git-ignored bench/corpora/ (mozilla/readability's test pages:
"readability"). All are served over HTTPS on 127.0.0.1 (a throw-away self-signed certificate,
made with `openssl`, which the browser and the http engine both trust), read through the product
path (`batch_extract_pages` with its default options, and again with engine browser and engine
http; real Chromium, nothing else reachable), and scored with the article benchmark's metric
per corpus and in all, beside the same pipeline and trafilatura's settings run directly on the
saved HTML. The scored text of a Markdown answer is what a reader of the rendered Markdown sees:
parsed as CommonMark by markdown-it-py (pinned in the bench extra), text and link text, not
URLs, not images.

The rules (stdlib/content/_selection.py Rules) are chosen by cross-validation across corpora: leave one
corpus out (chosen on the others, scored on it) and five folds dealt within each corpus; the
held-out figures are the ones to quote.

Run: .venv/bin/python bench/content.py [quality] [rendered] | loop   (TASKPLATE_ARTICLE_DATA
overrides the article folder, TASKPLATE_CORPORA=article,readability picks corpora; `quality`:
F1 only, no speed; `rendered`: the rules cross-validated on the pages as Chromium rendered them,
read by a second pass with format html, instead of the saved HTML; `loop`: only the event loop's
lag while pages turn into Markdown; `cv`: only the cross-validation on the saved HTML). Content
scoring is CPU-bound: BENCH_WORKERS processes (2).

     .venv/bin/python bench/content.py wcxb [fast]   WCXB's dev split alone (bench/wcxb.py fetches
it; never its test split), scored with its own metric (word F1, macro mean over pages) per page
type: the product path (default options) and the pipeline on the saved HTML, beside trafilatura's
defaults on the same HTML, and how often `pageType` says the benchmark's label; `fast`: without
the product path (the saved HTML only, for tuning; not the product's figure);
TASKPLATE_WCXB_TYPES=forum,listing scores only those page types (the benchmark's labels); the
pages where the product path and the saved HTML differ by more than 0.05 are listed;
TASKPLATE_WCXB_SAVE=FILE writes every row's answers ({row: {page: text}}) as JSON.
"""

from __future__ import annotations

import concurrent.futures
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
from taskplate.stdlib.content import _selection as content
from taskplate.stdlib.content import _voters as voters
from taskplate.stdlib.content._markdown import to_markdown

DATA = Path(
    os.environ.get("TASKPLATE_ARTICLE_DATA", ROOT.parent / "shared" / "data" / "article-extraction")
)
CORPORA = Path(__file__).parent / "corpora"  # bench/corpora.py fetches them; git-ignored
WORKERS = int(os.environ.get("BENCH_WORKERS", "2"))


def shingles(text: str) -> Counter[tuple[str, ...]]:
    tokens = re.findall(r"\w+", text or "")
    return Counter(tuple(tokens[i : i + 4]) for i in range(max(0, len(tokens) - 3)))


_PAGE_SCORES: dict[tuple[str, str], tuple[float | None, float | None]] = {}


def page_score(got_text: str, expected: str) -> tuple[float | None, float | None]:
    """One page's precision and recall of 4-shingles (None where undefined); kept, as the
    cross-validation scores the same texts on many subsets of pages."""
    known = _PAGE_SCORES.get((got_text, expected))
    if known is not None:
        return known
    got, want = shingles(got_text), shingles(expected)
    tp, fp, fn = (
        sum((got & want).values()),
        sum((got - want).values()),
        sum((want - got).values()),
    )
    found = (tp / (tp + fp) if tp + fp else None, tp / (tp + fn) if tp + fn else None)
    if tp + fp + fn == 0:
        found = (None, None)
    _PAGE_SCORES[(got_text, expected)] = found
    return found


def score(predicted: dict[str, str], truth: dict[str, str]) -> tuple[float, float, float]:
    """The benchmark's metric: per-page 4-shingle TP/FP/FN normalised, then mean P and R."""
    precisions, recalls = [], []
    for key, expected in truth.items():
        page_p, page_r = page_score(predicted.get(key, ""), expected)
        if page_p is not None:
            precisions.append(page_p)
        if page_r is not None:
            recalls.append(page_r)
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls) if recalls else 0.0
    return (2 * p * r / (p + r) if p + r else 0.0), p, r


def corpus_of(key: str) -> str:
    return key.split("/", 1)[0]


def by_corpus(keys: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for key in sorted(keys):
        found.setdefault(corpus_of(key), []).append(key)
    return found


def f1_of(out: dict[str, str], truth: dict[str, str], keys: list[str]) -> float:
    return score({k: out.get(k, "") for k in keys}, {k: truth[k] for k in keys})[0]


def per_corpus(out: dict[str, str], truth: dict[str, str]) -> dict[str, float]:
    """F1 on each corpus, on all pages together ("all") and the corpora's mean ("mean")."""
    corpora = by_corpus(list(truth))
    found = {name: f1_of(out, truth, keys) for name, keys in corpora.items()}
    return found | {"all": f1_of(out, truth, list(truth)), "mean": statistics.mean(found.values())}


_RENDERER = MarkdownIt("commonmark", {"html": False}).enable("table")


def visible(markdown: str) -> str:
    """What a reader of the rendered Markdown sees (markdown-it-py's CommonMark parse, tables
    on): text and link text, each block apart; no URLs, no images."""
    html = _RENDERER.render(markdown)
    return lxml.html.fromstring(f"<div>{html}</div>").text_content() if html.strip() else ""


def load() -> tuple[dict[str, str], dict[str, bytes], dict[str, str]]:
    """(gold text, page bytes, page URL) of every page of the chosen corpora, keyed CORPUS/KEY."""
    wanted = set(filter(None, os.environ.get("TASKPLATE_CORPORA", "").split(",")))
    truth, pages, urls = {}, {}, {}
    if (DATA / "ground-truth.json").exists() and (not wanted or "article" in wanted):
        gold = json.loads((DATA / "ground-truth.json").read_text(encoding="utf-8"))
        for k, v in gold.items():
            key = f"article/{k}"
            truth[key], urls[key] = v["articleBody"], v["url"]
            pages[key] = gzip.decompress((DATA / "html" / f"{k}.html.gz").read_bytes())
    for index in sorted(CORPORA.glob("*/truth.json")):
        name = index.parent.name
        if wanted and name not in wanted:
            continue
        for k, v in json.loads(index.read_text(encoding="utf-8")).items():
            key = f"{name}/{k}"
            truth[key], urls[key] = v["text"], v["url"]
            pages[key] = (index.parent / "pages" / f"{k}.html").read_bytes()
    return truth, pages, urls


class _QuietServer(ThreadingHTTPServer):
    def finish_request(self, request: Any, client_address: Any) -> None:
        # The TLS handshake in the request's own thread, not in accept: there one connection
        # that says nothing (a browser's preconnect) holds up every other until it ends.
        request.do_handshake()
        super().finish_request(request, client_address)

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a page left before its answer was written: nothing to report


def serve(pages: dict[str, bytes], folder: Path) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = pages.get(self.path.split("?")[0].strip("/").removesuffix(".html"))
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

    server = _QuietServer(("127.0.0.1", 0), Handler)
    server.socket = _tls(folder).wrap_socket(
        server.socket, server_side=True, do_handshake_on_connect=False
    )
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
PAGE_TYPES: dict[str, dict[str, str]] = {}  # engine: {key: the pageType each item answered}
ENGINES = {"default options": {}, "engine browser": {"engine": "browser"}}
ENGINES["engine http"] = {"engine": "http"}


def same_answers(
    answers: dict[str, str], apart: dict[str, str], least_words: int = 50
) -> list[list[str]]:
    """The pages answered with the same text of at least `least_words` words that `apart` (the
    same reading of the saved HTML) reads differently: an item that read another item's page
    (a tab left on the page before once answered so). Pages saved twice read the same both
    ways, and are no such group."""
    by_text: dict[str, list[str]] = {}
    for key, text in answers.items():
        if len(text.split()) >= least_words:
            by_text.setdefault(text, []).append(key)
    return [keys for keys in by_text.values() if len({apart.get(k) for k in keys}) > 1]


async def through_product(
    base: str, keys: list[str], both: bool, cert: Path, engines: dict[str, dict[str, str]] = ENGINES
) -> tuple[dict[str, dict[str, str]], dict[str, float], dict[str, bytes]]:
    """Markdown of every page through the product path: `batch_extract_pages` runs with its
    default options (engine auto), with engine browser and with engine http (the run manager an
    MCP call reaches, warm as a server is); and, from a run with format html and
    onlyMainContent false, the pages as Chromium rendered them, for the cross-validation of the
    rules on what the product reads. Only the engines are set up for the bench: both trust the
    bench's self-signed certificate, and nothing but this machine resolves in the browser (the
    saved pages reference the live web; their requests fail as on a machine without it)."""
    from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary
    from taskplate.stdlib import REGISTRY, WebConfig

    rules = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
    runtime = BrowserRuntime(BrowserConfig(extra_args=("--ignore-certificate-errors", rules)))
    web = WebConfig(verify=ssl.create_default_context(cafile=str(cert)), obey_robots=False)
    urls = [f"{base}/{key}.html" for key in keys]
    outputs, ms = {}, {}
    with tempfile.TemporaryDirectory() as home:
        library = TemplateLibrary(REGISTRY).load([SHIPPED])
        manager = RunManager(Path(home), library, runtime=runtime, web=web)
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

            for name, inputs in engines.items():
                items, elapsed = await batch(**inputs)
                outputs[name] = {
                    k: i.get("content") or "" for k, i in zip(keys, items, strict=True)
                }
                PAGE_TYPES[name] = {
                    k: i.get("pageType", "") for k, i in zip(keys, items, strict=True)
                }
                ms[name] = elapsed / len(keys) * 1000
                engines = Counter(i.get("engine") for i in items)
                print(f"  {name}: read by {dict(engines)}", file=sys.stderr)
                for key, item in zip(keys, items, strict=True):
                    if not item["success"] or item.get("warnings"):
                        why = item.get("error") or item.get("warnings")
                        print(f"  {name} {key[:24]}: {why}", file=sys.stderr)
            rendered = (await batch(format="html", onlyMainContent=False))[0] if both else []
    await runtime.close()
    html = {k: (i.get("content") or "").encode() for k, i in zip(keys, rendered, strict=False)}
    return outputs, ms, html


# --- Extractors run on the saved pages, in BENCH_WORKERS processes -----------------------------

_PAGES: dict[str, tuple[str, str]] = {}


def _share(pages: dict[str, bytes], urls: dict[str, str]) -> None:
    _PAGES.update({k: (v.decode("utf-8", errors="replace"), urls[k]) for k, v in pages.items()})


def _trafilatura(options: dict[str, object]) -> Callable[[str, str], str]:
    import trafilatura

    return lambda h, u: trafilatura.extract(h, url=u, include_comments=False, **options) or ""


def _extract(way: tuple[str, Any]) -> tuple[dict[str, str], float]:
    """One way's text of every shared page and its CPU ms per page: ("rules", Rules) for the
    selection with those rules, ("trafilatura", options), ("readability", None) or ("whole")."""
    kind, setting = way
    if kind == "rules":

        def extract(h: str, u: str) -> str:
            return visible(to_markdown(h, u, rules=setting)[0])

    elif kind == "trafilatura":
        extract = _trafilatura(setting)
    elif kind == "trafilatura as shipped":  # its defaults, comments included (WCXB's way)
        import trafilatura

        def extract(h: str, u: str) -> str:
            return trafilatura.extract(h, url=u) or ""

    elif kind == "readability":

        def extract(h: str, u: str) -> str:
            return voters._readability(lxml.html.document_fromstring(h))

    else:

        def extract(h: str, u: str) -> str:
            return str(lxml.html.fromstring(h).text_content())

    start = time.process_time()
    out = {k: extract(h, u) for k, (h, u) in _PAGES.items()}
    return out, (time.process_time() - start) / max(1, len(_PAGES)) * 1000


def run_ways(
    ways: dict[str, tuple[str, Any]], pages: dict[str, bytes], urls: dict[str, str]
) -> dict[str, tuple[dict[str, str], float]]:
    """Every way's texts of the pages, in WORKERS processes (the pages sent to each once)."""
    with concurrent.futures.ProcessPoolExecutor(
        WORKERS, initializer=_share, initargs=(pages, urls)
    ) as pool:
        return dict(zip(ways, pool.map(_extract, ways.values()), strict=True))


TRAFILATURA = {
    "trafilatura (defaults)": {},
    "trafilatura (fast)": {"fast": True},
    "trafilatura (precision)": {"favor_precision": True},
    "trafilatura (recall)": {"favor_recall": True},
}


# --- Cross-validation -------------------------------------------------------------------------

FOLDS = 5


def folds(keys: list[str]) -> list[list[str]]:
    """Five fixed folds: each corpus's pages sorted by key and dealt round-robin, so that every
    fold holds a fifth of every corpus."""
    parts: list[list[str]] = [[] for _ in range(FOLDS)]
    for corpus_keys in by_corpus(keys).values():
        for index in range(FOLDS):
            parts[index] += corpus_keys[index::FOLDS]
    return parts


def rules_name(rules: content.Rules) -> str:
    cleanups = f" + {'+'.join(rules.cleanups)}" if rules.cleanups else ""
    names = "+".join(_SHORT_NAMES[v] for v in rules.voters)
    count = len(rules.voters)
    if rules.pair != "apart":
        names = names.replace(
            "traf+prec", f"(traf {'or' if rules.pair == 'either' else 'and'} prec)"
        )
        count -= 1
    links = f", links>{rules.links:.0%} all votes" if rules.links is not None else ""
    links += " if labelled" if rules.links is not None and rules.labelled else ""
    spend = {"all": "", "kept": ", kept blocks spend", "run": ", kept blocks spend, run first"}[
        rules.spend
    ]
    spend += f", {rules.run_votes} votes in the run" if rules.run_votes is not None else ""
    spend += f", links {rules.run_links} votes in the run" if rules.run_links is not None else ""
    spend += f", captions under {rules.captions} words dropped" if rules.captions else ""
    spend += ", trailing tags dropped" if rules.tags else ""
    spend += f", islands under {rules.islands} before the run dropped" if rules.islands else ""
    spend += " (before its start)" if rules.islands and rules.islands_before == "start" else ""
    spend += ", repeats of kept blocks kept" if rules.repeats else ""
    spend += ", quotes in the article kept" if rules.quotes else ""
    spend += ", title heading dropped" if rules.title_heading else ""
    spend += f", items {rules.items}" if rules.items is not None else ""
    spend += f", least {rules.least}" if rules.least is not None else ""
    spend += ", offers" if rules.offers else ""
    spend += f", {rules.lone[0]} alone under {rules.lone[1]}" if rules.lone is not None else ""
    spend += " after the answer" if rules.lone is not None and rules.lone_after else ""
    spend += f" without link lines under {rules.lone_links}" if rules.lone_links else ""
    spend += f", teasers {rules.teasers}" if rules.teasers is not None else ""
    spend += " (entries)" if rules.teasers is not None and rules.entries else ""
    spend += ", consent banners' kept text dropped" if rules.consent_kept else ""
    spend += f", linked titles {rules.titles}" if rules.titles is not None else ""
    if rules.labels is not None:
        spend += f", labels {rules.labels}x{rules.label_times}"
        lines = " (link lines, lines without figures)" if rules.label_lines else " (link lines)"
        spend += lines if rules.label_links or rules.label_lines else ""
    context = ", context" if rules.context else ""
    return f"{names} {rules.votes}/{count}{context}{links}{spend}{cleanups}"


_SHORT_NAMES = {"trafilatura": "traf", "precision": "prec", "readability": "read", "justext": "jt"}
THREE = ("trafilatura", "precision", "readability")


def candidate_rules() -> list[content.Rules]:
    """Every choice of the pipeline (stdlib/content/_selection.py Rules): the voters (the three
    extractors alone, or with jusText's rules on the blocks), the votes a block needs, the
    short-block context, each clean-up taken away from or added to the shipped DEFAULT alone,
    the share of link text from which a block needs every vote; so each rule's own gain is
    visible; the choices of the article's run (its spending, its votes) and of its framing
    (captions, tags, the title as a heading). Ties on the training pages go to the candidate
    listed first (the shipped rules)."""
    shipped = content.DEFAULT
    found = [shipped]
    found += [
        replace(shipped, voters=names, votes=v, context=c)
        for names in (THREE, content.VOTERS)
        for v in range(2, len(names) + 1)
        for c in (False, True)
    ]
    # each clean-up of the shipped rules taken away alone, each other one added alone, none
    for name in content.CLEANUPS:
        others = tuple(c for c in shipped.cleanups if c != name)
        found.append(
            replace(shipped, cleanups=others if name in shipped.cleanups else (*others, name))
        )
    found.append(replace(shipped, cleanups=()))
    # the reply-form clean-up that never climbs past a post's prose before the form instead
    swapped = tuple("reply_threads" if c == "reply_forms" else c for c in shipped.cleanups)
    found.append(replace(shipped, cleanups=swapped))
    # lines of link text needing every vote: from which share of link text, or never; only
    # the labelled ones ("Read more: <link>"); the ordinary count (or 2) inside the article's run
    found += [replace(shipped, links=links) for links in (None, 0.5, 0.8, 0.9)]
    found += [replace(shipped, links=0.8, labelled=True)]
    found += [replace(shipped, links=0.8, run_links=n) for n in (2, 3)]
    # the votes a block of plain text needs inside the article's run
    found += [replace(shipped, run_votes=n) for n in (1, 2)]
    # the extractors' text used up by every long block, only by the kept ones, or by the kept
    # ones with those inside the article's run first
    found += [replace(shipped, spend=spend) for spend in ("all", "kept", "run")]
    # framing: a first heading repeating the page's title, small captions and credits, tag and
    # category lines after the article's last prose, small stretches of kept blocks before the
    # article's main run: each dropped, or kept
    found += [replace(shipped, title_heading=not shipped.title_heading)]
    found += [replace(shipped, captions=n) for n in (0, 10, 20)]
    found += [replace(shipped, tags=not shipped.tags)]
    found += [replace(shipped, islands=n) for n in (0, 10, 20, 40)]
    found += [
        replace(shipped, islands_before="start" if shipped.islands_before == "main" else "main")
    ]
    # a paragraph repeating the kept long block before it word for word: kept, or judged alone
    found += [replace(shipped, repeats=not shipped.repeats)]
    # quotations and embedded posts inside the article kept, or judged as any block
    found += [replace(shipped, quotes=not shipped.quotes)]
    # pages of many items (bench/content_wcxb_tune.py, WCXB's dev split): a listing's entries
    # left out, or any group of items as entries; trafilatura's wider reading kept when the vote
    # kept little of it: left out, or all of it (above the answer, its link lines: not shipped);
    # the text of consent banners the vote kept dropped (not shipped)
    found += [replace(shipped, teasers=None), replace(shipped, entries=False)]
    found += [replace(shipped, lone=None), replace(shipped, lone_after=False, lone_links=0)]
    found += [replace(shipped, consent_kept=True)]
    # the rules shipped before hidden elements, repeated paragraphs and the article's start
    found += [content.BEFORE]
    # the rules shipped before the framing and the run's spending (#44 item 3)
    found += [content.Rules(cleanups=shipped.cleanups, votes=3, voters=content.VOTERS, links=0.8)]
    # trafilatura's two modes read one parse and fail together: one vote between them
    found += [
        replace(shipped, pair=pair, votes=votes) for pair in ("either", "both") for votes in (2, 3)
    ]
    unique: dict[str, content.Rules] = {}
    for rules in found:
        unique.setdefault(rules_name(rules), rules)
    return list(unique.values())


def choose(results: dict[str, dict[str, str]], truth: dict[str, str], keys: list[str]) -> str:
    """The candidate with the best mean of per-corpus F1 on these pages (first on a tie)."""
    corpora = by_corpus(keys)

    def merit(name: str) -> float:
        return statistics.mean(f1_of(results[name], truth, ks) for ks in corpora.values())

    return max(results, key=merit)


def report_cross_validation(
    truth: dict[str, str], results: dict[str, dict[str, str]], what: str
) -> None:
    """Leave one corpus out and five folds: the rules chosen on the rest, scored on the part
    held out; beside the tuning F1 (the chosen rules on the pages they were chosen on)."""
    corpora = by_corpus(list(truth))
    print(f"\ncross-validation of the rules on {what} ({len(results)} candidates)")
    if len(corpora) > 1:
        print("leave one corpus out (chosen on the others, scored on it):")
        for name, keys in corpora.items():
            rest = [k for k in truth if corpus_of(k) != name]
            best = choose(results, truth, rest)
            print(f"  {name:<12} held out {f1_of(results[best], truth, keys):.3f}  ({best})")
    parts = folds(list(truth))
    tuning, held = [], []
    print(f"{FOLDS} folds within every corpus (chosen on four, scored on the fifth), per corpus:")
    for index, part in enumerate(parts):
        train = [k for j, p in enumerate(parts) if j != index for k in p]
        best = choose(results, truth, train)
        tune = per_corpus_of(results[best], truth, train)
        test = per_corpus_of(results[best], truth, part)
        tuning.append(tune)
        held.append(test)
        shown = "  ".join(f"{c} {tune[c]:.3f}->{test[c]:.3f}" for c in corpora)
        print(f"  fold {index + 1}: {shown}  ({best})")
    for name in corpora:
        t = [f[name] for f in tuning]
        h = [f[name] for f in held]
        print(
            f"  {name:<12} tuning {statistics.mean(t):.3f}, held out {statistics.mean(h):.3f}"
            f" (folds {min(h):.3f}-{max(h):.3f}, sd {statistics.pstdev(h):.3f});"
            f" drop {statistics.mean(t) - statistics.mean(h):+.3f}"
        )
    shipped = content.DEFAULT
    base = per_corpus(results[rules_name(shipped)], truth)
    print(f"\nshipped (stdlib/content/_selection.py DEFAULT): {rules_name(shipped)}")
    print("  " + "  ".join(f"{c} {base[c]:.3f}" for c in corpora) + f"  mean {base['mean']:.3f}")
    print(
        "each of its rules taken away alone (F1 change per corpus; '!' helps one, hurts another):"
    )
    without = {
        "the other vote counts": [
            replace(shipped, votes=v)
            for v in range(2, len(shipped.voters) + 1)
            if v != shipped.votes
        ],
        "context": [replace(shipped, context=not shipped.context)],
        "jusText's rules as a voter": (
            [replace(shipped, voters=THREE, votes=shipped.votes - 1)]
            if "justext" in shipped.voters
            else []
        ),
        "lines of link text needing every vote": [replace(shipped, links=None)],
        "the run's copy spending first": [replace(shipped, spend="all")],
        "a first heading equal to the title dropped": [replace(shipped, title_heading=False)],
        "trailing tag lines dropped": [replace(shipped, tags=False)],
        "small stretches before the main run dropped": [replace(shipped, islands=0)],
        "repeats of kept blocks kept": [replace(shipped, repeats=False)],
        "quotes in the article kept": [replace(shipped, quotes=False)],
        "small stretches dropped only before the start": [replace(shipped, islands_before="main")],
    } | {
        name: [replace(shipped, cleanups=tuple(c for c in shipped.cleanups if c != name))]
        for name in shipped.cleanups
    }
    for rule, variants in without.items():
        for variant in variants:
            name = rules_name(variant)
            if name not in results or variant == shipped:
                continue
            other = per_corpus(results[name], truth)
            gains = [base[c] - other[c] for c in corpora]  # what the rule brings
            mixed = "!" if max(gains) > 0.00005 and min(gains) < -0.00005 else " "
            shown = "  ".join(f"{c} {g:+.4f}" for c, g in zip(corpora, gains, strict=True))
            print(f" {mixed} {rule:<40} {shown}  ({name})")


def per_corpus_of(out: dict[str, str], truth: dict[str, str], keys: list[str]) -> dict[str, float]:
    return {name: f1_of(out, truth, ks) for name, ks in by_corpus(keys).items()}


# --- Speed ------------------------------------------------------------------------------------

ROUNDS = 5


def report_speed(pages: dict[str, bytes], urls: dict[str, str]) -> None:
    """CPU ms per page of taskplate's selection and Markdown beside trafilatura's own text and
    Markdown (its defaults), on the same pages: the median of interleaved rounds, with the
    spread. CPU time of this process (time.process_time), not wall time: the machine is
    shared, and the time other programs take is not the conversion's."""
    import trafilatura

    from taskplate.stdlib.content._markdown import select

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
    from taskplate.stdlib.content._conversion import conversion_workers, convert
    from taskplate.stdlib.reading.get_page_content import render

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
            from taskplate.stdlib.content import _conversion

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


def report_wcxb(fast: bool) -> None:
    """WCXB's dev split (bench/wcxb.py fetches it) scored with its own metric per page type:
    taskplate through the product path (`batch_extract_pages`, default options; not with
    `fast`), taskplate's pipeline run directly on the saved HTML (to_markdown, the function the
    product's conversion calls: for tuning, not the product path) and trafilatura (its
    defaults, as the benchmark ran it), all on the same HTML in the same run."""
    import wcxb

    found = wcxb.load()
    if not found:
        sys.exit(f"no WCXB pages in {wcxb.FOLDER}: run bench/wcxb.py first")
    if types := os.environ.get("TASKPLATE_WCXB_TYPES"):  # a few page types, for a quicker check
        found = [p for p in found if p.kind in types.split(",")]
    pages = {p.key: p.html for p in found}
    urls = {p.key: p.url for p in found}
    rows: dict[str, dict[str, str]] = {}
    if not fast:
        folder = tempfile.TemporaryDirectory()
        server = serve(pages, Path(folder.name))
        base = f"https://127.0.0.1:{server.server_address[1]}"
        cert = Path(folder.name) / "cert.pem"
        engines = {"default options": ENGINES["default options"]}
        markdown, _, _ = anyio.run(through_product, base, list(pages), False, cert, engines)
        server.shutdown()
        rows["taskplate, product path (default options)"] = {
            k: visible(v) for k, v in markdown["default options"].items()
        }
    ways = {
        "taskplate pipeline on the saved HTML (not the product path)": ("rules", content.DEFAULT),
        "trafilatura 2.3.1 (defaults)": ("trafilatura as shipped", None),
    }
    rows |= {name: out for name, (out, _) in run_ways(ways, pages, urls).items()}
    kinds = Counter(p.kind for p in found)
    print(f"\nWCXB dev split, {len(found)} pages; word F1 (P / R), macro mean over pages")
    order = ["all", *sorted(kinds, key=lambda k: -kinds[k])]
    print(f"{'page type (pages)':<20}" + "".join(f"{name[:34]:>36}" for name in rows))
    scored = {name: wcxb.per_type(out, found) for name, out in rows.items()}
    for kind in order:
        cells = "".join(
            f"{f:>18.3f} ({p:.3f} / {r:.3f})" for _, p, r, f in (s[kind] for s in scored.values())
        )
        print(f"{f'{kind} ({scored[next(iter(rows))][kind][0]})':<20}{cells}")
    if not fast:
        answered = PAGE_TYPES["default options"]
        right = sum(answered.get(p.key) == p.kind for p in found)
        print(f"pageType answered = the benchmark's label: {right}/{len(found)}")
        product = rows["taskplate, product path (default options)"]
        saved = rows["taskplate pipeline on the saved HTML (not the product path)"]
        for page in found:  # where the product path and the saved HTML differ, to look at by hand
            browser_f1 = wcxb.word_f1(product.get(page.key, ""), page.text)[2]
            saved_f1 = wcxb.word_f1(saved.get(page.key, ""), page.text)[2]
            if abs(browser_f1 - saved_f1) > 0.05:
                print(
                    f"  {page.key} {page.kind}: product path {browser_f1:.3f}, saved {saved_f1:.3f}"
                )
        for twins in same_answers(product, saved):
            print(f"  the same answer for different pages (one read another's): {twins}")
    if keep := os.environ.get("TASKPLATE_WCXB_SAVE"):  # every row's answers, to read page by page
        Path(keep).write_text(json.dumps(rows), encoding="utf-8")


def main() -> None:
    if sys.argv[1:2] == ["wcxb"]:  # WCXB's dev split alone: `wcxb` or `wcxb fast`
        report_wcxb(fast="fast" in sys.argv[2:])
        return
    truth, pages, urls = load()
    if not truth:
        print(f"no pages: no data at {DATA} (TASKPLATE_ARTICLE_DATA) and none in {CORPORA}")
        return
    if sys.argv[1:] == ["loop"]:  # only the event loop's lag
        report_loop(pages, urls)
        return
    if sys.argv[1:] == ["cv"]:  # only the cross-validation of the rules on the saved pages
        ways = {rules_name(r): ("rules", r) for r in candidate_rules()}
        done = run_ways(ways, pages, urls)
        report_cross_validation(truth, {n: out for n, (out, _) in done.items()}, "the saved HTML")
        return
    folder = tempfile.TemporaryDirectory()
    server = serve(pages, Path(folder.name))
    base = f"https://127.0.0.1:{server.server_address[1]}"
    on_rendered = "rendered" in sys.argv[1:]
    cert = Path(folder.name) / "cert.pem"
    markdown, product_ms, rendered = anyio.run(
        through_product, base, list(truth), on_rendered, cert
    )
    server.shutdown()
    rows = {
        f"product path, {name}": ({k: visible(v) for k, v in out.items()}, product_ms[name])
        for name, out in markdown.items()
    }
    results = run_ways(
        {rules_name(r): ("rules", r) for r in candidate_rules()}
        | {name: ("trafilatura", options) for name, options in TRAFILATURA.items()}
        | {
            "readability (trafilatura's)": ("readability", None),
            "whole page text": ("whole", None),
        },
        pages,
        urls,
    )
    rows["taskplate on the saved HTML"] = results[rules_name(content.DEFAULT)]
    for name in [*TRAFILATURA, "readability (trafilatura's)", "whole page text"]:
        rows[name] = results[name]
    corpora = by_corpus(list(truth))
    sizes = ", ".join(f"{name} {len(keys)}" for name, keys in corpora.items())
    print(f"\n{len(truth)} pages ({sizes}); F1 per corpus, on all pages, and the corpora's mean")
    header = "".join(f"{name[:11]:>12}" for name in corpora)
    print(f"{'pipeline':<44}{header}{'all':>8}{'mean':>8}{'P':>7}{'R':>7}{'ms/page':>9}")
    for name, (out, ms) in rows.items():
        f1 = per_corpus(out, truth)
        _, p, r = score(out, truth)
        shown = "".join(f"{f1[c]:12.3f}" for c in corpora)
        print(f"{name:<44}{shown}{f1['all']:8.3f}{f1['mean']:8.3f}{p:7.3f}{r:7.3f}{ms:9.1f}")
    best = {
        c: max((per_corpus_of(rows[t][0], truth, keys)[c], t) for t in TRAFILATURA)
        for c, keys in corpora.items()
    }
    print(
        "trafilatura's best setting per corpus: "
        + ", ".join(f"{c} {f:.3f} ({t.removeprefix('trafilatura ')})" for c, (f, t) in best.items())
    )
    product = rows["product path, default options"][0]
    saved = rows["taskplate on the saved HTML"][0]
    for key in truth:  # where the product path and the saved HTML differ, to look at by hand
        one = {key: truth[key]}
        browser_f1, saved_f1 = score({key: product[key]}, one)[0], score({key: saved[key]}, one)[0]
        if abs(browser_f1 - saved_f1) > 0.05:
            print(f"  {key[:24]}: product path {browser_f1:.3f}, saved HTML {saved_f1:.3f}")
    if on_rendered:
        candidates = {n: ("rules", r) for n, r in ((rules_name(r), r) for r in candidate_rules())}
        on_chromium = run_ways(candidates, rendered, urls)
        report_cross_validation(
            truth,
            {n: out for n, (out, _) in on_chromium.items()},
            "the pages as Chromium rendered them",
        )
    else:
        names = [rules_name(r) for r in candidate_rules()]
        report_cross_validation(truth, {n: results[n][0] for n in names}, "the saved HTML")
    if "quality" not in sys.argv[1:]:
        report_speed(pages, urls)
        report_loop(pages, urls)


if __name__ == "__main__":
    main()
