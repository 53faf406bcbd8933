"""Main-content rules tuned on WCXB's dev split only, on its saved HTML, cross-validated by domain
and by page type; a quick loop for choosing rules, not the product-path benchmark (bench/content.py).

The pages: WCXB's dev/ split (dev/html/NNNN.html.gz and dev/ground-truth/NNNN.json, from
TASKPLATE_WCXB, default /work/wcxb, or bench/corpora/wcxb). Its test/ split is the project's
held-out set: this script never reads it. Each page runs through the content pipeline directly
(stdlib/content: to_markdown on the saved HTML with the candidate Rules; the scored text is what a
reader of the rendered Markdown sees, as in bench/content.py) and is scored with the benchmark's
own metric (word-level F1 of lowercase `\\w+` tokens, macro mean over pages), per page type.

Cross-validation: five folds grouped by domain (a domain's pages all in one fold: the host of
the page's URL, hashed), and each page type left out in turn; in each, the candidate with the best
mean F1 on the rest is chosen and scored on the held-out part. Those held-out figures are the ones
to quote. trafilatura (defaults) is scored beside, on the same HTML.

Run: .venv/bin/python bench/content_wcxb_tune.py [limit N] [types a,b] [candidates a,b]
     [trafilatura] [save FILE]   (BENCH_WORKERS processes, 2; CPU ms per page printed per
     candidate); `speed ROUNDS`: only each candidate's whole reading's CPU a page, in one
     process, rounds interleaved (with `limit`)
"""

from __future__ import annotations

import concurrent.futures
import gzip
import json
import os
import re
import statistics
import sys
import time
import zlib
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from _setup import ROOT

from taskplate.stdlib.content import _selection as content

WCXB = Path(os.environ.get("TASKPLATE_WCXB", "/work/wcxb"))
if not (WCXB / "dev").is_dir():
    WCXB = ROOT / "bench" / "corpora" / "wcxb"
WORKERS = int(os.environ.get("BENCH_WORKERS", "2"))
FOLDS = 5
_TOKEN = re.compile(r"\w+")


def word_prf(predicted: str, reference: str) -> tuple[float, float, float]:
    """The benchmark's metric (its evaluate.py word_f1): precision, recall and F1 of tokens."""
    got, want = _TOKEN.findall(predicted.lower()), _TOKEN.findall(reference.lower())
    if not want:
        return (1.0, 1.0, 1.0) if not got else (0.0, 0.0, 0.0)
    if not got:
        return 0.0, 0.0, 0.0
    overlap = sum((Counter(got) & Counter(want)).values())
    p, r = overlap / len(got), overlap / len(want)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def load(limit: int | None = None) -> dict[str, dict[str, Any]]:
    """Every dev page: its ground truth text, type, URL and domain (never the test split)."""
    pages = {}
    for path in sorted((WCXB / "dev" / "ground-truth").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        kind = ((data.get("_internal") or {}).get("page_type") or {}).get("primary", "article")
        url = data.get("url") or ""
        pages[path.stem] = {
            "truth": data["ground_truth"].get("main_content") or "",
            "type": "collection" if kind == "category" else kind,
            "url": url,
            "domain": (urlsplit(url).hostname or path.stem).removeprefix("www."),
        }
    keys = sorted(pages)
    if limit:
        keys = keys[:: max(1, len(keys) // limit)][:limit]
    return {k: pages[k] for k in keys}


def _html(key: str) -> str:
    raw = gzip.decompress((WCXB / "dev" / "html" / f"{key}.html.gz").read_bytes())
    return raw.decode("utf-8", errors="replace")


_CURRENT: list[str] = [""]  # the page being read, in a worker: the key of its voters' texts


def _memo_readings() -> None:
    """The voters' texts of a page read once for every candidate of the same clean-ups (those
    spared and the related sections dropped too) and voters (the candidates differ after the
    vote): the costly part of a page, read once."""
    original = content.readings
    memo: dict[tuple[str, tuple[str, ...]], list[str]] = {}

    def readings(doc: Any, voters: Any = content.VOTERS) -> list[str]:
        key = (_CURRENT[0], tuple(voters))
        if key not in memo:
            memo.clear()  # one page at a time
            memo[key] = original(doc, voters)
        return memo[key]

    content.readings = readings  # type: ignore[assignment]


def _run(job: tuple[dict[str, tuple[str, Any]], list[tuple[str, str]]]) -> dict[str, Any]:
    """Every way's texts of some pages and the CPU seconds each took (the voters' shared
    reading counted once, for the first way of the same clean-ups)."""
    ways, items = job
    from content import visible  # bench/content.py's reader of rendered Markdown

    from taskplate.stdlib.content._markdown import to_markdown

    if content.readings.__name__ == "readings" and not hasattr(content, "_memo"):
        _memo_readings()
        content._memo = True  # type: ignore[attr-defined]
    out: dict[str, tuple[dict[str, str], float]] = {n: ({}, 0.0) for n in ways}
    for key, url in items:
        html = _html(key)
        for name, (kind, setting) in ways.items():
            # the voters read the page after everything that runs before the vote
            before = (setting.cleanups, setting.related, setting.spared) if kind == "rules" else ""
            _CURRENT[0] = f"{key} {before}"
            start = time.process_time()
            if kind == "rules":
                text = visible(to_markdown(html, url, rules=setting)[0])
            else:
                import trafilatura

                text = trafilatura.extract(html, url=url, include_comments=False) or ""
            texts, cpu = out[name]
            texts[key] = text
            out[name] = texts, cpu + time.process_time() - start
    return out


def run_ways(
    ways: dict[str, tuple[str, Any]], pages: dict[str, dict[str, Any]]
) -> dict[str, tuple[dict[str, str], float]]:
    """Every way's texts of the pages in WORKERS processes, and its CPU ms per page."""
    items = [(k, p["url"]) for k, p in pages.items()]
    chunks = [items[i :: WORKERS * 4] for i in range(WORKERS * 4)]
    results: dict[str, tuple[dict[str, str], float]] = {n: ({}, 0.0) for n in ways}
    with concurrent.futures.ProcessPoolExecutor(WORKERS) as pool:
        for done in pool.map(_run, [(ways, chunk) for chunk in chunks]):
            for name, (out, cpu) in done.items():
                texts, total = results[name]
                texts.update(out)
                results[name] = texts, total + cpu
    return {n: (t, cpu / max(1, len(pages)) * 1000) for n, (t, cpu) in results.items()}


def mean_f1(scores: dict[str, tuple[float, float, float]], keys: list[str]) -> float:
    return statistics.mean(scores[k][2] for k in keys) if keys else float("nan")


def fold_of(domain: str) -> int:
    return zlib.crc32(domain.encode()) % FOLDS


def cross_validate(
    scores: dict[str, dict[str, tuple[float, float, float]]], pages: dict[str, dict[str, Any]]
) -> tuple[dict[str, str], dict[str, str]]:
    """(held-out key -> candidate chosen without it) for domain folds and for left-out types."""
    by_fold: dict[int, list[str]] = defaultdict(list)
    by_type: dict[str, list[str]] = defaultdict(list)
    for key, page in pages.items():
        by_fold[fold_of(page["domain"])].append(key)
        by_type[page["type"]].append(key)

    def best(train: list[str]) -> str:
        # The mean over page types of each type's mean (every type weighs the same), then all;
        # nothing to train on (one type's pages, that type left out): the first, as shipped.
        if not train:
            return next(iter(scores))

        def value(name: str) -> tuple[float, float]:
            kinds = defaultdict(list)
            for k in train:
                kinds[pages[k]["type"]].append(k)
            per = [mean_f1(scores[name], ks) for ks in kinds.values()]
            return statistics.mean(per), mean_f1(scores[name], train)

        return max(scores, key=value)

    domain_choice, type_choice = {}, {}
    for fold, held in by_fold.items():
        chosen = best([k for f, ks in by_fold.items() if f != fold for k in ks])
        domain_choice |= dict.fromkeys(held, chosen)
    for kind, held in by_type.items():
        chosen = best([k for t, ks in by_type.items() if t != kind for k in ks])
        type_choice |= dict.fromkeys(held, chosen)
    return domain_choice, type_choice


TYPES = ("article", "documentation", "service", "forum", "collection", "listing", "product")
# rs-trafilatura's published dev-split F1 per type (the targets).
TARGETS = {
    "all": 0.86,
    "article": 0.932,
    "documentation": 0.932,
    "service": 0.844,
    "forum": 0.808,
    "collection": 0.716,
    "listing": 0.707,
    "product": 0.641,
}


def table(rows: dict[str, dict[str, tuple[float, float, float]]], pages: dict[str, Any]) -> None:
    kinds = [t for t in TYPES if any(p["type"] == t for p in pages.values())]
    print(f"{'':34}" + "".join(f"{k[:11]:>12}" for k in ["all", *kinds]))
    print(f"{'target':34}" + "".join(f"{TARGETS.get(k, 0):>12.3f}" for k in ["all", *kinds]))
    for name, scores in rows.items():
        cells = []
        for kind in ["all", *kinds]:
            keys = [k for k, p in pages.items() if kind in ("all", p["type"])]
            f = mean_f1(scores, keys)
            p = statistics.mean(scores[k][0] for k in keys)
            r = statistics.mean(scores[k][1] for k in keys)
            cells.append(f"{f:.3f} {p:.2f}/{r:.2f}" if name.startswith("*") else f"{f:.3f}")
        width = 12 if not name.startswith("*") else 0
        print(f"{name[:34]:34}" + "".join(f"{c:>{width or len(c) + 1}}" for c in cells))


def candidates() -> dict[str, content.Rules]:
    """The rules to choose among: the shipped ones and variations of the new choices."""
    base = content.DEFAULT
    before = replace(base, items=None, least=None)
    found = {"shipped": base, "before items": before}
    found["links"] = replace(base, item_links=True)
    found["consent"] = replace(base, cleanups=("consent", *base.cleanups))
    found["offers"] = replace(base, offers=True)
    found["consent offers"] = replace(base, cleanups=("consent", *base.cleanups), offers=True)
    found["before teasers"] = replace(base, teasers=None)
    # the rules shipped before trafilatura's wider reading and the entries' guard (#54)
    found["before lone"] = replace(base, lone=None, lone_after=False, lone_links=0, entries=False)
    for name, voter in (("traf", "trafilatura"), ("read", "readability")):
        for share in (0.5, 0.7, 1.0):
            found[f"lone {name} {share}"] = replace(base, lone=(voter, share))
            found[f"after {name} {share}"] = replace(base, lone=(voter, share), lone_after=True)
            for most in (5, 10):
                found[f"links {most} after {name} {share}"] = replace(
                    base, lone=(voter, share), lone_after=True, lone_links=most
                )
                found[f"entries links {most} after {name} {share}"] = replace(
                    base, lone=(voter, share), lone_after=True, lone_links=most, entries=True
                )
                found[f"all links {most} after {name} {share}"] = replace(
                    base,
                    lone=(voter, share),
                    lone_after=True,
                    lone_links=most,
                    entries=True,
                    consent_kept=True,
                )
    for ratio in (2.0, 3.0, 5.0):
        found[f"teasers {ratio}"] = replace(base, teasers=ratio)
    found["entries"] = replace(base, entries=True)
    found["consent kept"] = replace(base, consent_kept=True)
    for ratio in (2.0, 1.5):
        found[f"entries {ratio}"] = replace(base, entries=True, teasers=ratio)
    for share in (0.2, 0.3):
        found[f"least {share}"] = replace(base, least=share)
        found[f"entries least {share}"] = replace(base, entries=True, least=share)
    # #54, the helper's round: readability as the wider reading when it returned far more than
    # trafilatura (trafilatura's own choice), and the widest region's guards.
    for rival in (1.5, 2.0, 3.0):
        found[f"rival {rival}"] = replace(base, rival=rival)
    found["least words"] = replace(base, least_words=True)
    # the rules shipped before the thread's kin, the even groups, least words and rival
    found["before kin"] = replace(base, kin=None, item_even=False, least_words=False, rival=None)
    found["even"] = replace(base, item_even=True)
    for ratio in (1.0, 1.5, 3.0):
        found[f"kin {ratio}"] = replace(base, kin=ratio)
        found[f"kin {ratio} even least words"] = replace(
            base, kin=ratio, item_even=True, least_words=True
        )
        found[f"kin {ratio} even least words rival 3.0"] = replace(
            base, kin=ratio, item_even=True, least_words=True, rival=3.0
        )
        found[f"kin {ratio} least words rival 3.0"] = replace(
            base, kin=ratio, least_words=True, rival=3.0
        )
    # #54, the third round: headings over kept text, and the prose of the answer's own element
    # (or of the <main> around it), customer reviews dropped; "before fill": the rules before.
    found["before fill"] = replace(
        base,
        cleanups=tuple(c for c in base.cleanups if c != "reviews"),
        headings=False,
        fill=None,
        fill_region="common",
        fill_grow=0,
    )
    found["headings"] = replace(base, headings=True)
    # #54: a link holding a card read as text (a shop's tiles are whole links); shipped on
    # collections
    for kinds in ((), ("collection", "listing"), ("collection", "listing", "product"), ("*",)):
        found["cards " + (" ".join(kinds) or "nowhere")] = replace(base, cards=kinds)
    # #54: the prose between the page's h1 and the answer (a service page's pitch); shipped on
    # services and collections (on listings and documentation too, the article corpora lost
    # 0.0026: articles taken for them)
    for kinds in (
        (),
        ("service",),
        ("service", "collection"),
        ("service", "collection", "listing", "documentation"),
        ("service", "collection", "listing", "documentation", "product", "forum"),
    ):
        found["leads " + (" ".join(kinds) or "nowhere")] = replace(base, leads=kinds)
    for least in (1, 4, 10, 20, 40):
        found[f"fill {least}"] = replace(base, fill=least)
        found[f"fill {least} headings"] = replace(base, fill=least, headings=True)
        found[f"main {least} headings"] = replace(
            base, fill=least, fill_region="main", headings=True
        )
    found["reviews"] = replace(base, cleanups=(*base.cleanups, "reviews"))
    for grow in (0.5, 1.0, 2.0):
        for region in ("common", "main"):
            found[f"{region} 10 grow {grow} headings"] = replace(
                base, fill=10, fill_region=region, fill_grow=grow, headings=True
            )
    for least, grow in ((4, 0.5), (10, 0.25), (20, 0.5)):
        found[f"main {least} grow {grow} headings"] = replace(
            base, fill=least, fill_region="main", fill_grow=grow, headings=True
        )
    found["main 10 grow 0.5 headings reviews"] = replace(
        found["main 10 grow 0.5 headings"], cleanups=(*base.cleanups, "reviews")
    )
    found["main 10 grow 1.0 headings reviews"] = replace(
        found["main 10 grow 1.0 headings"], cleanups=(*base.cleanups, "reviews")
    )
    found["main 10 headings reviews"] = replace(
        found["main 10 headings"], cleanups=(*base.cleanups, "reviews")
    )
    # #54, the fourth round: a form holding most of the page's words is its layout, not chrome
    # ("forms"); where there is no <main>, the content column between the page's header and
    # footer as fill's region ("column"); "before forms": the rules before.
    before = replace(
        base, cleanups=tuple(c for c in base.cleanups if c != "forms"), fill=10, fill_region="main"
    )
    found["before forms"] = before
    found["before forms, fill 4"] = replace(before, fill=4)
    for least in (4, 10):
        found[f"before forms, column {least}"] = replace(before, fill=least, fill_region="column")
    found["forms, main 10"] = replace(base, fill=10, fill_region="main")
    found["forms, fill 4"] = replace(base, fill_region="main")
    found["forms, column 10"] = replace(base, fill=10)
    for grow in (0.25, 1.0):
        found[f"column grow {grow}"] = replace(base, fill_grow=grow)
    found["column 2"] = replace(base, fill=2)
    # #54, the fourth round: the items of a group read in part completed (a card's linked
    # title and price beside its kept text), at most `complete_size` words an item.
    found["before complete"] = replace(base, complete=None, complete_size=None)
    for least in (2, 3, 5):
        found[f"complete {least}"] = replace(base, complete=least, complete_size=None)
    for size in (40, 80, 150, 300):
        found[f"complete 2 size {size}"] = replace(base, complete=2, complete_size=size)
    # #54, the fifth round: posts' signatures and authors' boxes named so, dropped before the vote
    found["before signatures"] = replace(
        base, cleanups=tuple(c for c in base.cleanups if c != "signatures")
    )
    # #54, the fifth round: the panels a reader opens (tabs, an accordion's answers) kept among
    # the hidden elements, many cards in an <article> a listing, dialogs dropped; "before
    # panels": the rules before, the base of the candidates below.
    undo = {"hidden_panels": "hidden", "nested_listings": "nested_teasers", "dialogs": ""}
    base = replace(base, cleanups=tuple(undo.get(c, c) for c in base.cleanups if undo.get(c, c)))
    found["before panels"] = base
    # link lines between kept prose (a list of forms inside a section)
    found["inner links"] = replace(base, inner_links=True)
    found["inner links grow 0.25"] = replace(base, inner_links=True, fill_grow=0.25)
    panels = tuple("hidden_panels" if c == "hidden" else c for c in base.cleanups)
    found["panels"] = replace(base, cleanups=panels)
    found["panels inner links"] = replace(base, cleanups=panels, inner_links=True)
    # stories' cards nested in an article kept when together they hold most of its words
    nested = tuple("nested_listings" if c == "nested_teasers" else c for c in base.cleanups)
    found["nested listings"] = replace(base, cleanups=nested)
    both = tuple("hidden_panels" if c == "hidden" else c for c in nested)
    found["nested listings panels"] = replace(base, cleanups=both)
    found["nested listings panels inner links"] = replace(base, cleanups=both, inner_links=True)
    # dialogs a button opens over the page (a policy, a sign-in, a cart) dropped
    found["dialogs"] = replace(base, cleanups=(*base.cleanups, "dialogs"))
    found["dialogs panels"] = replace(base, cleanups=(*panels, "dialogs"))
    found["dialogs nested listings panels"] = replace(base, cleanups=(*both, "dialogs"))
    found["dialogs nested listings panels inner links"] = replace(
        base, cleanups=(*both, "dialogs"), inner_links=True
    )
    # #54, the sixth round: each item's labels (a post's "Share", "Quote", "Member": a short
    # text kept in many items) dropped after the vote, and the linked titles of a page of
    # entries kept over its intro; "before labels": the rules before, the base of the rest.
    shipped = replace(content.DEFAULT, labels=None, label_links=False, titles=None)
    found["before labels"] = shipped
    for most in (2, 4, 6):
        found[f"labels {most}"] = replace(shipped, labels=most)
        for times in (2, 5):
            found[f"labels {most} times {times}"] = replace(shipped, labels=most, label_times=times)
    # linked headings (entries' titles) kept over an intro
    for ratio in (1.0, 1.5, 3.0):
        found[f"titles {ratio}"] = replace(shipped, titles=ratio)
        found[f"titles {ratio} labels 4"] = replace(shipped, titles=ratio, labels=4)
        found[f"titles {ratio} links 4"] = replace(
            shipped, titles=ratio, labels=4, label_links=True
        )
    found["links 4"] = replace(shipped, labels=4, label_links=True)
    for ratio in (0.5, 1.0):
        for most, times in ((4, 2), (6, 3)):
            found[f"titles {ratio} links {most} times {times}"] = replace(
                shipped, titles=ratio, labels=most, label_times=times, label_links=True
            )
    # #54, the seventh round: a page with neither <main> nor a frame around its content column
    # (no header, footer or menu marked by tag or role) reads fill's region elsewhere: the
    # nearest element holding the answer ("common") or the page's wrapper ("page"), for any
    # answer or only one of fewer words ("under": one section, not an article's prose); and a
    # reply's quotation of an earlier post dropped ("quoted"; "comments": containers named as
    # comments dropped). "before else": the rules before, the base of the rest.
    base = replace(content.DEFAULT, fill_else="", fill_else_words=0, quoted=False)
    found["before else"] = base
    for otherwise in ("common", "page"):
        found[f"else {otherwise}"] = replace(base, fill_else=otherwise)
        for grow in (1.0, 2.0):
            found[f"else {otherwise} grow {grow}"] = replace(
                base, fill_else=otherwise, fill_grow=grow
            )
    for most in (150, 250, 300):
        found[f"else page under {most}"] = replace(base, fill_else="page", fill_else_words=most)
    base = found["else page under 300"]
    found["quoted"] = replace(base, quoted=True)  # shipped
    comments = (*base.cleanups, "comment_threads")
    found["comments"] = replace(base, cleanups=comments)
    found["quoted comments"] = replace(base, cleanups=comments, quoted=True)
    # #54, the eighth round: fill's region around the answer's prose, its link lines (a menu
    # item the vote kept far from the answer) left out ("prose"); fill_else for longer answers.
    base = replace(
        content.DEFAULT,
        cleanups=tuple(c for c in content.DEFAULT.cleanups if c != "modals"),
        fill_prose=False,
        fill_else_articles=False,
    )
    found["before prose"] = base
    found["prose"] = replace(base, fill_prose=True)
    for most in (400, 500, 700):
        found[f"else under {most}"] = replace(base, fill_else_words=most)
        found[f"prose else under {most}"] = replace(base, fill_prose=True, fill_else_words=most)
    found["else articles"] = replace(base, fill_else_articles=True)
    found["post comments"] = replace(base, cleanups=(*base.cleanups, "post_comments"))
    found["modals"] = replace(base, cleanups=(*base.cleanups, "modals"))
    both = (*base.cleanups, "modals", "post_comments")
    found["modals post comments"] = replace(base, cleanups=both)
    found["modals post comments else articles"] = replace(
        base, cleanups=both, fill_else_articles=True
    )
    found["modals post comments prose else articles"] = replace(
        base, cleanups=both, fill_else_articles=True, fill_prose=True
    )
    found["modals post comments prose else under 700"] = replace(
        base, cleanups=both, fill_else_words=700, fill_prose=True
    )
    found["modals post comments prose"] = replace(base, cleanups=both, fill_prose=True)
    found["modals prose else articles"] = replace(  # shipped
        base, cleanups=(*base.cleanups, "modals"), fill_else_articles=True, fill_prose=True
    )
    found["prose else articles"] = replace(base, fill_prose=True, fill_else_articles=True)
    # #54, the ninth round: a thread's posts from its JSON-LD when the answer lacks most of them
    # a post's labels outside tables, lists and code ("Member" under every post); the comments
    # under posts, in two posts or more (a Q&A answer's remarks)
    base = replace(
        content.DEFAULT,
        cleanups=tuple(c for c in content.DEFAULT.cleanups if c != "post_comments"),
        posts=False,
    )
    found["before posts"] = base
    found["posts"] = replace(base, posts=True)
    found["label lines"] = replace(base, label_lines=True)
    found["label lines 6"] = replace(base, label_lines=True, labels=6)
    comments = (*base.cleanups, "post_comments")
    found["comments under posts"] = replace(base, cleanups=comments)
    found["posts label lines"] = replace(base, posts=True, label_lines=True)
    found["posts comments"] = replace(base, posts=True, cleanups=comments)  # shipped
    found["posts comments label lines"] = replace(
        base, posts=True, cleanups=comments, label_lines=True
    )
    # #54, the ninth round (a second helper's): text only a screen reader speaks dropped before the vote ("sr"), and
    # a card's title said again in it dropped after ("echoes N": of at most N words).
    # "before echoes": the rules shipped with the posts and the comments under posts, the base
    # of this round's candidates; "answers sr controls echoes 16" is shipped.
    undo = {"hidden_answers": "hidden_panels", "screen_reader": "", "controls": ""}
    base = replace(
        content.DEFAULT,
        cleanups=tuple(undo.get(c, c) for c in content.DEFAULT.cleanups if undo.get(c, c)),
        echoes=None,
    )
    found["before echoes"] = base
    screen = (*base.cleanups, "screen_reader")
    found["sr"] = replace(base, cleanups=screen)
    for most in (8, 16):
        found[f"echoes {most}"] = replace(base, echoes=most)
        found[f"sr echoes {most}"] = replace(base, cleanups=screen, echoes=most)
    # buttons' few words and drop-downs' choices dropped before the vote ("controls")
    found["controls"] = replace(base, cleanups=(*base.cleanups, "controls"))
    found["sr controls"] = replace(base, cleanups=(*screen, "controls"))
    found["sr controls echoes 16"] = replace(base, cleanups=(*screen, "controls"), echoes=16)
    # a FAQ's hidden answers (named as answers) kept among the panels a reader opens
    answers = tuple("hidden_answers" if c == "hidden_panels" else c for c in base.cleanups)
    found["answers"] = replace(base, cleanups=answers)
    found["answers sr echoes 16"] = replace(base, cleanups=(*answers, "screen_reader"), echoes=16)
    found["answers sr controls echoes 16"] = replace(
        base, cleanups=(*answers, "screen_reader", "controls"), echoes=16
    )
    # each rule after the vote left out in turn, from the shipped rules: where it helps and hurts
    base = content.DEFAULT
    found["without least"] = replace(base, least=None)
    found["without kin"] = replace(base, kin=None)
    found["without teasers"] = replace(base, teasers=None)
    found["without items"] = replace(base, items=None)
    found["without fill"] = replace(base, fill=None, fill_else="")
    found["without lone"] = replace(base, lone=None)
    # jusText's good blocks kept too when every extractor returned one small part
    for share in (0.2, 0.35, 0.5):
        found[f"lone justext {share}"] = replace(base, lone_justext=share)
    # lone_after only when the answer holds this many words: a stray line anchors nothing
    for least in (10, 20, 40):
        found[f"anchor {least}"] = replace(base, lone_anchor=least)
    # a split body's parts joined whatever frame they lie in (the clean-up before its frame)
    anywhere = tuple("split_body_anywhere" if c == "split_body" else c for c in base.cleanups)
    found["split anywhere"] = replace(base, cleanups=anywhere)
    # customer reviews dropped on every page, an article's too (the clean-up before its guard)
    reviews = tuple("reviews_anywhere" if c == "reviews" else c for c in base.cleanups)
    found["reviews anywhere"] = replace(base, cleanups=reviews)
    # a text said again (a layout's second copy, a carousel's clones): dropped wherever it lies
    # ("again N": of at least N words) or only when another element holds it ("apart": shipped
    # with 3); "without again": every copy kept
    found["without again"] = replace(base, again=None)
    for least in (3, 6):
        found[f"again {least}"] = replace(base, again_apart=False, again=least)
    for least in (6, 10):
        found[f"again apart {least}"] = replace(base, again=least)
    # a list a kept block introduces ("...how to:") kept whole (shipped) or left to the vote
    found["introduced lists nowhere"] = replace(base, introduced=False)
    # a list item or heading said again kept on documentation (a tutorial's steps; shipped) or
    # dropped as any text
    found["again steps nowhere"] = replace(base, again_steps=())
    # sections headed as other things than the page's own ("Similar items", "Customers also
    # viewed") and not prose, dropped before the vote on every page ("related") or only on
    # pages of some kinds ("related product", shipped: the pageType read from the page);
    # "without related": every such section kept
    found["without related"] = replace(base, related=())
    found["related"] = replace(base, related=("*",))
    found["related product"] = replace(base, related=("product",))
    found["related product collection"] = replace(base, related=("product", "collection"))
    found["related product article"] = replace(base, related=("product", "article"))
    # Clean-ups that stand down on some kinds of page (Rules.spared), each tried on service
    # pages alone first (the 13 clean-ups; reviews and split_body raise them), then together,
    # on listings too ("spared first"); then each clean-up spared on each other kind, the pages
    # read as that kind alone scored: a product's split body and a thread's nested posts raised
    # them (both: "shipped"). "without spared" runs every clean-up everywhere.
    found["without spared"] = replace(base, spared=())
    for name in base.cleanups:
        found[f"spare {name} on service"] = replace(base, spared=(("service", name),))
    service = (("service", "reviews"), ("service", "split_body"))
    found["spare on service"] = replace(base, spared=service)
    found["spare hidden too"] = replace(base, spared=(*service, ("service", "hidden_answers")))
    first = (*service, ("listing", "reviews"), ("listing", "split_body"))
    found["spared first"] = replace(base, spared=first)
    found["spare product split"] = replace(base, spared=(*first, ("product", "split_body")))
    found["spare forum nested"] = replace(base, spared=(*first, ("forum", "nested_listings")))
    # A post's labels again: short lines outside tables, lists and code without a figure ("label
    # lines": a card's price repeated on every card is a value), and the author's column beside
    # each post of a thread (an aside in each of 3 sibling articles: "post asides"); "before
    # asides" is the rules before them
    threads = ("post_asides", "author_boxes")
    cleanups = tuple(c for c in base.cleanups if c not in threads)
    before = replace(base, cleanups=cleanups)
    found["before asides"] = before
    found["label lines now"] = replace(before, label_lines=True)
    asides = tuple(c for c in base.cleanups if c != "author_boxes")
    found["post asides"] = replace(before, cleanups=asides)
    found["label lines asides"] = replace(before, cleanups=asides, label_lines=True)
    # the author's box beside each post by its names (a poster's word and a box's, 3 or more):
    # "asides boxes" is shipped ("label lines" drops a spec grid's "Yes" and "No" on every row,
    # an entry's "Difficulty: Beginner": values the page shows)
    found["asides boxes"] = base
    found["label lines asides boxes"] = replace(base, label_lines=True)
    found["author boxes"] = replace(before, cleanups=(*cleanups, "author_boxes"))
    # the items of a group read in part that hold no kept block (a guide's one step the voters
    # passed over): "complete all but articles" is shipped (on an article the groups around the
    # story are teasers of other stories: the shared article pages 0.9787 -> 0.9771 when there
    # too); "before complete all" is the rules before it
    before_all = replace(base, complete_all=False)
    found["before complete all"] = before_all
    found["complete all"] = replace(base, complete_all_articles=True)
    found["complete all but articles"] = base
    # a group of panels a reader opens (tabs, an accordion's answers) read whole when the answer
    # holds one, on these kinds of page: "panels whole but products" is shipped (a product's tabs
    # are its reviews and terms); "before panels whole" is the rules before
    found["before panels whole"] = replace(base, panels=())
    kinds = {
        "docs": ("documentation",),
        "docs service article": ("documentation", "service", "article"),
        "service article": ("service", "article"),
        "but products": ("article", "documentation", "service", "forum", "collection", "listing"),
        "everywhere": ("*",),
    }
    for name, chosen in kinds.items():
        found[f"panels whole {name}"] = replace(base, panels=chosen)
    return found


def speed(pages: dict[str, dict[str, Any]], ways: dict[str, Any], rounds: int = 5) -> None:
    """CPU ms a page of each way's whole reading (to_markdown, nothing shared), in one process,
    rounds interleaved (the order turned every round); the median and the rounds' spread."""
    from content import visible

    from taskplate.stdlib.content._markdown import to_markdown

    htmls = [(_html(k), p["url"]) for k, p in pages.items()]
    taken: dict[str, list[float]] = {n: [] for n in ways}
    for round_ in range(rounds):
        for name in list(ways)[:: 1 if round_ % 2 == 0 else -1]:
            start = time.process_time()
            for html, url in htmls:
                visible(to_markdown(html, url, rules=ways[name][1])[0])
            taken[name].append((time.process_time() - start) / len(htmls) * 1000)
    first = statistics.median(taken[next(iter(ways))])
    for name, times in taken.items():
        median = statistics.median(times)
        print(
            f"  {name}: {median:.1f} CPU ms a page (rounds {min(times):.1f}-{max(times):.1f}),"
            f" {median / first:.3f} times the first"
        )


def main() -> None:
    args = sys.argv[1:]
    limit = int(args[args.index("limit") + 1]) if "limit" in args else None
    pages = load(limit)
    if "types" in args:
        wanted = set(args[args.index("types") + 1].split(","))
        pages = {k: p for k, p in pages.items() if p["type"] in wanted}
    ways: dict[str, tuple[str, Any]] = {n: ("rules", r) for n, r in candidates().items()}
    if "candidates" in args:
        wanted = set(args[args.index("candidates") + 1].split(","))
        ways = {n: w for n, w in ways.items() if n in wanted}
    if "trafilatura" in args:
        ways["trafilatura (defaults)"] = ("trafilatura", None)
    print(f"{len(pages)} dev pages of WCXB ({WCXB}), {len(ways)} ways, {WORKERS} workers")
    if "speed" in args:  # only the CPU a page of each way, interleaved rounds
        speed(pages, ways, int(args[args.index("speed") + 1]))
        return
    results = run_ways(ways, pages)
    scores = {
        name: {k: word_prf(texts.get(k, ""), pages[k]["truth"]) for k in pages}
        for name, (texts, _cpu) in results.items()
    }
    for name, (_texts, cpu) in results.items():
        print(f"  {name}: {cpu:.1f} CPU ms a page")
    if "save" in args:  # every way's texts, for reading
        Path(args[args.index("save") + 1]).write_text(
            json.dumps({n: t for n, (t, _cpu) in results.items()}), encoding="utf-8"
        )
    rules_scores = {n: s for n, s in scores.items() if ways[n][0] == "rules"}
    rows = {f"* {n}": s for n, s in scores.items()}
    if len(rules_scores) > 1:
        domain_choice, type_choice = cross_validate(rules_scores, pages)
        rows["* held out: domain folds"] = {k: rules_scores[c][k] for k, c in domain_choice.items()}
        rows["* held out: type left out"] = {k: rules_scores[c][k] for k, c in type_choice.items()}
        print("chosen (domain folds):", dict(Counter(domain_choice.values())))
        print("chosen (type left out):", dict(Counter(type_choice.values())))
    table(rows, pages)
    if "dump" in args:  # the worst pages of the first way, for reading
        first = next(iter(scores))
        worst = sorted(pages, key=lambda k: scores[first][k][2])[:40]
        for k in worst:
            p, r, f = scores[first][k]
            print(
                f"{k} {pages[k]['type']:13} F1 {f:.2f} P {p:.2f} R {r:.2f} {pages[k]['url'][:70]}"
            )


if __name__ == "__main__":
    main()


__all__ = ["replace"]
