"""Main-content selection by agreement: independent extractors vote on the page's own text blocks.

Pure functions of a parsed page (lxml); no browser, and no rule that names a site, domain or page.

Extractors that work differently each judge the page: trafilatura's own heuristics (fast
mode, no fallback), trafilatura tuned for precision, readability (Arc90's scoring of
containers), and as a candidate jusText's rules (each block's stop-word and link density, then
its neighbours) run on the page's own blocks. The page is cut into its text blocks (the text
between block-level tags, in document order); a block is main content when two of the three
extractors voted for it (an extractor votes for a block when it returned most of its text that
no block before took). Short blocks are judged beside their neighbours; small stretches of kept
blocks before the article's start (a box, a headline above a share bar), tag lines after its
last prose and a first heading equal to the page's title are dropped; a paragraph the page
repeats right after a kept copy is kept (extractors return a repeated text once), and so are
the quotations and embedded posts inside the article (extractors leave embedded posts out).
When the vote kept less than a share of what trafilatura alone returned (one section of a
service page, a collection's intro), that voter's blocks after the answer's start are kept too,
its short link lines left out (`lone`, _lone's); the items around the answer are _items', the
headings over kept text and the <main> around one section of many _filling's. The page is then pruned to
those blocks, so what is kept keeps its own markup: headings, lists, tables, code, links and the
images between kept blocks. Each rule is a `Rules` choice kept only when cross-validation
supports it; the blocks are _blocks', the voters and how a voter's text is read _voters'.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from . import _boilerplate as boilerplate
from . import _filling as filling
from . import _items as items
from . import _layers as layers
from . import _lone as lone
from . import _related as related
from . import _split_body as split_body
from . import _threads as threads
from ._blocks import SHORT, Block, blocks, shingles
from ._pruning import prune
from ._rules import Rules as Rules
from ._voters import VOTERS as VOTERS
from ._voters import justext_votes, read, readings

MIN_MAIN_WORDS = 10
# Every clean-up a Rules may name, by name.
CLEANUPS = boilerplate.CLEANUPS | layers.CLEANUPS | split_body.CLEANUPS | threads.CLEANUPS


def choose(page_blocks: list[Block], texts: list[str], rules: Rules) -> list[bool]:
    """For each block, whether enough voters voted for it (three of four by default): each
    extractor's text (texts, in the order of rules.voters) votes for the blocks it holds most
    of, and jusText's rules vote on the blocks themselves (abstaining, one vote fewer needed,
    when they find no good block at all).

    With context, a short block (a few words: a heading, a label, a link) needs a kept long
    block next to it: the words of a menu item are easily found somewhere in an article.
    """
    voters = [read(text) for text in texts]
    # jusText's rules find no good block on a page with no paragraph long enough (its
    # neighbours rule then makes every block bad): it abstains, and one vote fewer is needed.
    # An extractor returning nothing votes against every block (that is a judgement).
    needed = rules.votes
    good = justext_votes(page_blocks) if "justext" in rules.voters else []
    if "justext" in rules.voters and not any(good):
        needed, good = needed - 1, []
    needed = max(needed, 1)

    paired = rules.pair != "apart" and {"trafilatura", "precision"} <= set(rules.voters)
    extractors = [n for n in rules.voters if n != "justext"]
    pair = [extractors.index("trafilatura"), extractors.index("precision")] if paired else []

    def votes(index: int, block: Block, held: list[dict[Any, int] | None]) -> int:
        found = [h is not None for h in held]
        count = sum(found)
        if pair:
            both = [found[i] for i in pair]
            count -= sum(both)
            count += all(both) if rules.pair == "both" else any(both)
        return count + (good[index] if good else 0)

    is_long = [len(b.words) >= SHORT for b in page_blocks]
    everyone = len(extractors) - (len(pair) // 2) + (1 if good else 0)
    linked = [
        rules.links is not None
        and b.link_chars > rules.links * b.chars
        and not (rules.labelled and b.link_chars >= b.chars)
        for b in page_blocks
    ]

    def decide(order: list[int]) -> tuple[list[bool | None], list[int]]:
        """The long blocks' decisions and vote counts, taken in the given order: an
        extractor's text is used up block by block (by every block, or by the kept ones)."""
        readers = [voter.fresh() for voter in voters]
        kept: list[bool | None] = [None] * len(page_blocks)
        counts = [0] * len(page_blocks)
        for index in order:
            block = page_blocks[index]
            held = [r.holds(block.words, wanted[index]) for r in readers]
            counts[index] = votes(index, block, held)
            keep = counts[index] >= (everyone if linked[index] else needed)
            if keep or rules.spend == "all":  # else a rejected block leaves its text to a copy
                for reader, got in zip(readers, held, strict=True):
                    if got:
                        reader.spend(got)
            kept[index] = keep
        return kept, counts

    longs = [i for i, long in enumerate(is_long) if long]
    wanted = {i: shingles(page_blocks[i].words) for i in longs}
    kept, counts = decide(longs)
    if rules.spend == "run":  # again, the blocks between kept ones first: the body's copy wins
        inside = _inside(kept)
        kept, counts = decide([i for i in longs if inside[i]] + [i for i in longs if not inside[i]])
    if rules.run_votes is not None or rules.run_links is not None:
        inside = _inside(kept)
        for i in longs:
            need = rules.run_links if linked[i] else rules.run_votes
            if not kept[i] and inside[i] and need is not None:
                kept[i] = counts[i] >= need
    if rules.context:
        before, after = _nearest(kept), _nearest(kept[::-1])[::-1]
    else:
        before = after = [True] * len(kept)
    empty: Counter[tuple[str, ...]] = Counter()
    decisions = [
        bool(k)
        if long
        else (b or a) and votes(i, block, [v.holds(block.words, empty) for v in voters]) >= needed
        for i, (block, k, long, b, a) in enumerate(
            zip(page_blocks, kept, is_long, before, after, strict=True)
        )
    ]
    if rules.repeats:
        _keep_repeats(page_blocks, decisions)
    if rules.quotes:
        _keep_quotes(page_blocks, decisions)
    if rules.captions:
        decisions = [
            k and not (b.figure and len(b.words) < rules.captions)
            for b, k in zip(page_blocks, decisions, strict=True)
        ]
    if rules.tags:
        _drop_trailing_links(page_blocks, decisions)
    if rules.islands:
        _drop_islands(page_blocks, decisions, rules.islands, rules.islands_before)
    return decisions


PARAGRAPH = 20  # a block of at least this many words, not a heading, is a paragraph


def _keep_repeats(page_blocks: list[Block], kept: list[bool]) -> None:
    """A paragraph (a block of PARAGRAPH words or more, not a heading) repeating word for word
    the long block just before it, which is kept, is kept: the same paragraph again (its first
    copy took the extractors' votes). A headline's copy (shorter), and a copy with a caption or
    a credit line between (a standfirst repeated as the first paragraph), are left as judged."""
    last: int | None = None  # the nearest long block so far
    for i, block in enumerate(page_blocks):
        if len(block.words) < SHORT:
            continue
        paragraph = len(block.words) >= PARAGRAPH and not block.heading
        if paragraph and last is not None and kept[last] and block.words == page_blocks[last].words:
            kept[i] = True
        last = i


def _keep_quotes(page_blocks: list[Block], kept: list[bool]) -> None:
    """The blocks inside blockquotes whose nearest long blocks outside quotations, before and
    after them, are kept (a quotation or an embedded post inside the article) are kept."""
    outside = [
        k if len(b.words) >= SHORT and not b.quote else None
        for b, k in zip(page_blocks, kept, strict=True)
    ]
    inside = _inside(outside)
    for i, block in enumerate(page_blocks):
        if block.quote and inside[i]:
            kept[i] = True


def _drop_islands(page_blocks: list[Block], kept: list[bool], most: int, before: str) -> None:
    """Kept stretches before the article's main run (its stretch of kept blocks with the most
    words, stretches split by a rejected long block) of fewer than `most` words are dropped:
    a summary or claim box, a lead caption above the body. With `before` "start", only those
    before the first stretch of at least `most` words."""
    stretches: list[list[int]] = [[]]
    for i, (b, k) in enumerate(zip(page_blocks, kept, strict=True)):
        if k:
            stretches[-1].append(i)
        elif len(b.words) >= SHORT and stretches[-1]:
            stretches.append([])
    sizes = [sum(len(page_blocks[i].words) for i in s) for s in stretches]
    main = sizes.index(max(sizes))
    if before == "start":
        main = next(i for i, size in enumerate(sizes) if size >= most or i == main)
    for stretch, size in zip(stretches[:main], sizes[:main], strict=True):
        if size < most:
            for i in stretch:
                kept[i] = False


def _inside(kept: list[bool | None]) -> list[bool]:
    """For each position, whether the nearest long blocks on both sides of it are kept: it is
    inside the article's run."""
    before, after = _nearest(kept), _nearest(kept[::-1])[::-1]
    return [b and a for b, a in zip(before, after, strict=True)]


TAG_LINKS = 0.5  # a block after the article's last prose with more link text than this is a tag


def _drop_trailing_links(page_blocks: list[Block], kept: list[bool]) -> None:
    """The kept blocks after the article's last kept prose (a long block of mostly plain text)
    that are mostly link text or a few words (tag and category lines, "Filed under:") are
    dropped."""
    prose = [
        i
        for i, (b, k) in enumerate(zip(page_blocks, kept, strict=True))
        if k and len(b.words) >= SHORT and b.link_chars <= TAG_LINKS * b.chars
    ]
    for i in range(prose[-1] + 1 if prose else len(kept), len(kept)):
        block = page_blocks[i]
        if block.link_chars > TAG_LINKS * block.chars or len(block.words) < SHORT:
            kept[i] = False


def _nearest(decisions: list[bool | None]) -> list[bool]:
    """For each position, the last long block's decision before it (False at the start)."""
    out, last = [], False
    for decision in decisions:
        out.append(last)
        if decision is not None:
            last = decision
    return out


# The rules raising the cross-validated F1 of bench/content.py's corpora or leaving it (docs/
# benchmarks.md; jusText voting, link lines needing every vote, small captions dropped help one
# corpus and hurt the other), and WCXB dev's (bench/content_wcxb_tune.py, folds by domain and type):
# items to again; label_lines drops values (a spec grid's "Yes" on every row) and costs the
# article pages 0.0005, fill without fill_grow 0.008, lone before the answer's start or with link
# lines under 5 words 0.006, fill_else for any answer 0.01, again anywhere (an article's own
# repeats too) readability's pages 0.034, and again apart itself 0.006 there (its test pages say
# a paragraph of lorem ipsum twice on purpose); related on every kind of page costs collections
# 0.004 (a shop's "Related articles" there are its content), sparing hidden elements on service
# pages too reads an article's hidden copy twice (0.97->0.65), complete_all on articles too adds
# teasers of other stories (the article pages 0.002), panels on products their reviews' tabs.
DEFAULT = Rules(
    cleanups=(
        "forms",
        "hidden_answers",
        "nested_listings",
        "named_boilerplate",
        "split_body",
        "reply_threads",
        "reviews",
        "signatures",
        "post_asides",
        "author_boxes",
        "dialogs",
        "modals",
        "post_comments",
        "screen_reader",
        "controls",
    ),
    voters=("trafilatura", "precision", "readability"),
    votes=2,
    tags=True,
    islands=20,
    islands_before="start",
    repeats=True,
    quotes=True,
    title_heading=True,
    items=1.5,
    least=0.1,
    offers=True,
    posts=True,
    teasers=3.0,
    entries=True,
    lone=("trafilatura", 0.7),
    lone_after=True,
    lone_links=5,
    rival=3.0,
    kin=1.5,
    item_even=True,
    least_words=True,
    headings=True,
    fill=4,
    fill_region="column",
    fill_grow=0.5,
    fill_else="page",
    fill_else_words=300,
    fill_else_articles=True,
    fill_prose=True,
    complete=2,
    complete_size=150,
    complete_all=True,
    complete_all_articles=False,
    labels=4,
    label_links=True,
    titles=1.0,
    quoted=True,
    echoes=16,
    again=3,
    again_apart=True,
    related=("product",),
    panels=("article", "documentation", "service", "forum", "collection", "listing"),
    spared=(
        ("service", "reviews"),
        ("service", "split_body"),
        ("listing", "reviews"),
        ("listing", "split_body"),
        ("product", "split_body"),
        ("forum", "nested_listings"),
    ),
    cards=("collection",),
    leads=("service", "collection"),
    again_steps=("documentation",),
    introduced=True,
)
# The rules before hidden elements, repeats, quotes and the article's start: bench/content.py's.
BEFORE = Rules(
    cleanups=("nested_teasers", "named_boilerplate", "split_body", "reply_threads"),
    voters=("trafilatura", "precision", "readability"),
    votes=2,
    tags=True,
    islands=20,
    title_heading=True,
)


def main_content(doc: Any, rules: Rules = DEFAULT) -> Any | None:
    """The main content of a parsed page (pruned in place) or None when none is found."""
    found, is_main = main_region(doc, rules)
    return found if is_main else None


def main_region(doc: Any, rules: Rules = DEFAULT, kind: str = "") -> tuple[Any | None, bool]:
    """(the main content, pruned in place, True), or (the widest region, False) when it is under
    `rules.least` of the page (_items.fallback), or (None, False) when there is neither. `kind`:
    the page's pageType, read before (its `related` and `spared` rules), or "" (unknown)."""
    body = doc.find("body")
    if body is None:
        return None, False
    for name in rules.cleanups:
        if (kind, name) not in rules.spared:
            CLEANUPS[name](body)
    if kind in rules.related or "*" in rules.related:
        related.drop_related(body)
    page_blocks = blocks(body, kind in rules.cards or "*" in rules.cards)
    texts = readings(doc, rules.voters)
    try:
        kept = choose(page_blocks, texts, rules)
        if rules.lone is not None:
            kept = lone.widen(page_blocks, kept, texts, rules, choose)
        if rules.lone_justext is not None:
            kept = lone.justext(page_blocks, kept, rules)
    finally:
        read.cache_clear()
    if rules.title_heading:
        filling.drop_title_heading(doc, page_blocks, kept)
    if rules.consent_kept:
        boilerplate.drop_kept_banners(page_blocks, kept)
    if rules.items is not None and any(kept):
        items.widen(page_blocks, kept, rules.items, rules.item_links, rules.item_even)
    if rules.kin is not None and any(kept):
        items.kin(page_blocks, kept, rules.kin)
    if rules.teasers is not None and any(kept):
        items.teasers(page_blocks, kept, rules.teasers, rules.entries)
    if rules.titles is not None and any(kept):
        items.titles(page_blocks, kept, rules.titles)
    filling.widen(page_blocks, kept, rules)
    if kind in rules.panels or "*" in rules.panels:
        layers.read_panels_whole(page_blocks, kept)
    if rules.quoted:
        items.quoted(page_blocks, kept)
    items.echoes(page_blocks, kept, rules.echoes)
    steps = kind in rules.again_steps or "*" in rules.again_steps
    items.said_again(page_blocks, kept, rules.again, rules.again_apart, steps)
    if rules.labels is not None:
        most, times = rules.labels, rules.label_times
        items.labels(page_blocks, kept, most, times, rules.label_links, rules.label_lines)
    if kind in rules.leads or "*" in rules.leads:
        filling.lead(page_blocks, kept)
    is_main = items.words(page_blocks, kept) >= MIN_MAIN_WORDS
    if rules.least is not None:
        kept, is_main = items.fallback(page_blocks, kept, is_main, rules.least, rules.least_words)
    if items.words(page_blocks, kept) < MIN_MAIN_WORDS:
        return None, False
    try:  # lxml refuses to join text of control characters (a page of random bytes): whole page
        return prune(body, page_blocks, kept), is_main
    except ValueError:
        return None, False
