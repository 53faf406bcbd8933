"""Main-content selection by agreement: independent extractors vote on the page's own text blocks.

Pure functions of a parsed page (lxml); no browser, and no rule that names a site, domain or page.

Four extractors that work differently each judge the page: trafilatura's own heuristics (fast
mode, no fallback), trafilatura tuned for precision, readability (Arc90's scoring of
containers) and jusText's rules (each block's stop-word and link density, then its
neighbours), the last run here on the page's own blocks. The page is cut into its text blocks
(the text between block-level tags, in document order); a block is main content when at least
three of the four voted for it (an extractor votes for a block when it returned most of its
text), and all of them when it is mostly link text (a "Read more: <other story>" line: the
three extractors share one parse and take such lines together). The page is then pruned to those blocks, so what is kept keeps its own markup:
headings, lists, tables, code, links and the images between kept blocks.
"""

from __future__ import annotations

import copy
import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import justext
import trafilatura
from lxml import etree
from trafilatura.external import try_readability

from . import _boilerplate as boilerplate

# An extractor "returned" a block when it holds at least this share of the block's 4-word
# shingles; and a block is kept when this many of the four voters voted for it.
COVERAGE = 0.5
VOTES = 3
VOTERS = ("trafilatura", "precision", "readability", "justext")
MIN_MAIN_WORDS = 10
SHORT = 4  # a block of fewer words has no 4-word shingle: it is judged by its neighbours

BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "center",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)
_WORD = re.compile(r"\w+")
_HEADINGS = frozenset(["h1", "h2", "h3", "h4", "h5", "h6"])


@dataclass
class Block:
    """One text block of the page: its words, where its text lives in the tree, and how many of
    its characters (spaces collapsed) there are and how many are link text."""

    pieces: list[tuple[Any, str]] = field(default_factory=list)  # (element, "text" | "tail")
    words: list[str] = field(default_factory=list)
    chars: int = 0
    link_chars: int = 0
    copyright: bool = False
    heading: bool = False  # it starts inside a heading (h1-h6)

    def add(self, element: Any, slot: str, text: str, in_link: bool) -> None:
        self.pieces.append((element, slot))
        self.words.extend(_WORD.findall(text.lower()))
        size = len(" ".join(text.split())) + 1
        self.chars += size
        if in_link:
            self.link_chars += size
        if "\xa9" in text:
            self.copyright = True


def blocks(root: Any) -> list[Block]:
    """The page's text blocks in document order: text runs split at block-level tags."""
    found: list[Block] = []
    current = Block()
    links = headings = 0  # open <a> and <h1>-<h6> elements around the current text
    for event, element in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        tag = element.tag
        if event == "start":
            if tag in BLOCK_TAGS and current.words:
                found.append(current)
                current = Block()
            if tag == "a":
                links += 1
            elif tag in _HEADINGS:
                headings += 1
            if isinstance(tag, str) and element.text and not element.text.isspace():
                if not current.words:
                    current.heading = headings > 0
                current.add(element, "text", element.text, links > 0)
            continue
        if event == "end":
            if tag == "a":
                links -= 1
            elif tag in _HEADINGS:
                headings -= 1
        if tag in BLOCK_TAGS and current.words:
            found.append(current)
            current = Block()
        if element.tail and not element.tail.isspace() and element is not root:
            if not current.words:
                current.heading = headings > 0
            current.add(element, "tail", element.tail, links > 0)
    if current.words:
        found.append(current)
    return found


def _shingles(words: list[str]) -> Counter[tuple[str, ...]]:
    return Counter(zip(words, words[1:], words[2:], words[3:], strict=False))


@dataclass(frozen=True)
class Rules:
    """The choices of the selection, each kept only when it raises the cross-validated F1 of
    bench/content.py: the page clean-ups run first (names from _boilerplate.CLEANUPS), the
    votes a block needs, and whether short blocks are judged by their neighbours."""

    cleanups: tuple[str, ...] = ()
    votes: int = VOTES
    context: bool = True
    voters: tuple[str, ...] = VOTERS
    # How trafilatura's two modes vote, as they read one shared parse and fail together:
    # "apart" (a vote each), "either" (one vote when either holds the block), "both" (one
    # vote when both do).
    pair: str = "apart"
    # A long block whose link text is more than this share of its characters (a "Read more:
    # <other story>" line) is kept only when every voter voted for it; None: no such rule.
    links: float | None = None


class _Reading:
    """What one extractor returned, consumed block by block so a repeated block counts once."""

    def __init__(self, text: str) -> None:
        words = _WORD.findall(text.lower())
        self.shingles = _shingles(words)
        self.joined = f" {' '.join(words)} "
        self.vocabulary = set(words)

    def returns(self, words: list[str], wanted: Counter[tuple[str, ...]]) -> bool:
        """Whether this reading holds most of a block (its words and their shingles)."""
        if not wanted:  # fewer than four words: the exact run of words
            vocabulary = self.vocabulary
            return all(w in vocabulary for w in words) and f" {' '.join(words)} " in self.joined
        have = self.shingles
        got = {s: min(n, have[s]) for s, n in wanted.items() if have.get(s, 0) > 0}
        if sum(got.values()) < COVERAGE * (len(words) - 3):
            return False
        for shingle, count in got.items():
            have[shingle] -= count
        return True


def _trafilatura(doc: Any, precision: bool) -> str:
    """trafilatura's own text of the page (fast mode: no fallback), through its public API."""
    document = trafilatura.bare_extraction(
        doc,  # trafilatura works on its own copy
        include_comments=False,
        include_tables=True,
        deduplicate=False,
        fast=True,
        favor_precision=precision,
        output_format="txt",  # its raw text is enough here: no text serialisation
    )
    return (document.raw_text or "") if document is not None else ""  # type: ignore[union-attr]


def _trafilatura_modes(tree: Any, modes: tuple[bool, ...]) -> list[str]:
    """trafilatura's text of the page in its balanced and/or its precision mode (fast, without
    comments; modes: precision or not), as `bare_extraction` gives them, from the page's tree
    already pruned as trafilatura prunes it first; at about half the cost of two calls: the
    steps the two modes share (the copy of the page, the pruning of the raw tree, its cleaning
    and the conversion of its tags) run once. This follows trafilatura's own sequence
    (trafilatura.core.trafilatura_sequence) with two differences that change no score of
    bench/content.py: the precision mode's cleaning keeps the text after the empty elements it
    deletes, as the balanced mode's does, and the balanced mode's retry in recall mode of pages
    it finds little text on is left out (a retry is not a vote). tests/stdlib/test_content.py
    compares the texts with the public API's."""
    t = _internals
    assert t is not None
    balanced = t.OPTIONS[False]
    cleaned = t.convert_tags(t.tree_cleaning(copy.copy(tree), balanced), balanced)
    texts = []
    for index, precision in enumerate(modes):
        options = t.OPTIONS[precision]
        mine = cleaned if index == len(modes) - 1 else copy.copy(cleaned)
        if precision:
            mine = t.prune_unwanted_nodes(mine, t.REMOVE_COMMENTS_XPATH)
        _body, text = t.extract_content(mine, options)
        if not precision and len(text) < options.min_extracted_size:  # its rescue of short pages
            _body, rescued, size = t.baseline(tree)
            text = rescued if size > len(text) else text
        texts.append(text)
    return texts


class _TrafilaturaInternals:
    """The parts of trafilatura's pipeline _trafilatura_modes runs (None when a version of
    trafilatura lacks one: then the public API is called twice)."""

    def __init__(self) -> None:
        from trafilatura.baseline import baseline
        from trafilatura.htmlprocessing import convert_tags, prune_unwanted_nodes, tree_cleaning
        from trafilatura.main_extractor import extract_content
        from trafilatura.settings import Extractor
        from trafilatura.xpaths import (
            RAW_TREE_PRUNE_XPATH,
            REMOVE_COMMENTS_AND_LISTS_XPATH,
            REMOVE_COMMENTS_XPATH,
        )

        self.baseline, self.convert_tags, self.extract_content = (
            baseline,
            convert_tags,
            extract_content,
        )
        self.prune_unwanted_nodes, self.tree_cleaning = prune_unwanted_nodes, tree_cleaning
        self.RAW_TREE_PRUNE_XPATH = RAW_TREE_PRUNE_XPATH
        self.REMOVE_COMMENTS_AND_LISTS_XPATH = REMOVE_COMMENTS_AND_LISTS_XPATH
        self.REMOVE_COMMENTS_XPATH = REMOVE_COMMENTS_XPATH
        self.OPTIONS = {
            p: Extractor(fast=True, precision=p, comments=False, tables=True, dedup=False)
            for p in (False, True)
        }


try:
    _internals: _TrafilaturaInternals | None = _TrafilaturaInternals()
except (ImportError, AttributeError, TypeError):  # pragma: no cover - another trafilatura
    _internals = None


def _readability(doc: Any) -> str:
    summary = try_readability(copy.deepcopy(doc))  # it prunes the tree it is given
    return str(summary.text_content())


def readings(doc: Any, voters: Iterable[str] = VOTERS) -> list[str]:
    """The texts of a parsed page that the extractors among the voters return, in their order.

    The page is copied and pruned once as trafilatura prunes it first (known boilerplate,
    comment sections); trafilatura's modes share their work on it, and readability then reads
    it (as in trafilatura's own fallback), in place."""
    wanted = [name for name in voters if name in ("trafilatura", "precision", "readability")]
    if _internals is None:  # pragma: no cover - a trafilatura without the parts shared here
        public = {
            "trafilatura": lambda: _trafilatura(doc, precision=False),
            "precision": lambda: _trafilatura(doc, precision=True),
            "readability": lambda: _readability(doc),
        }
        return [public[name]() for name in wanted]
    t = _internals
    tree = t.prune_unwanted_nodes(copy.copy(doc), t.RAW_TREE_PRUNE_XPATH)
    tree = t.prune_unwanted_nodes(tree, t.REMOVE_COMMENTS_AND_LISTS_XPATH)
    modes = tuple(name == "precision" for name in wanted if name != "readability")
    found = dict(
        zip((n for n in wanted if n != "readability"), _trafilatura_modes(tree, modes), strict=True)
    )
    if "readability" in wanted:
        found["readability"] = str(try_readability(tree).text_content())  # last: it prunes tree
    return [found[name] for name in wanted]


# jusText's published defaults (Pomikálek 2011): characters, stop-word share, link share, and
# how far (in characters) a good block may follow a heading that it makes good.
LENGTH_LOW, LENGTH_HIGH = 50, 150
STOPWORDS_LOW, STOPWORDS_HIGH = 0.1, 0.2
MAX_LINK_DENSITY = 0.25
MAX_HEADING_DISTANCE = 200


@functools.cache
def _stopwords() -> frozenset[str]:
    """jusText's stop words of every language it ships (pages come in any language)."""
    return frozenset(
        word.lower()
        for language in justext.get_stoplists()
        for word in justext.get_stoplist(language)
    )


def justext_votes(page_blocks: list[Block]) -> list[bool]:
    """jusText's classification on the page's own blocks, with its default settings: a block
    is good by its stop-word and link density and length; short and near-good blocks take
    their neighbours' class, and a heading shortly before a good block is good."""
    stopwords = _stopwords()
    classes = []
    for block in page_blocks:
        density = sum(w in stopwords for w in block.words) / len(block.words)
        if block.link_chars > MAX_LINK_DENSITY * block.chars or block.copyright:
            kind = "bad"
        elif block.chars < LENGTH_LOW:
            kind = "bad" if block.link_chars else "short"
        elif density >= STOPWORDS_HIGH:
            kind = "good" if block.chars > LENGTH_HIGH else "neargood"
        else:
            kind = "neargood" if density >= STOPWORDS_LOW else "bad"
        classes.append(kind)

    def neighbour(index: int, step: int, near_good: bool) -> str:
        index += step
        while 0 <= index < len(classes):
            kind = classes[index]
            if kind in ("good", "bad") or (near_good and kind == "neargood"):
                return kind
            index += step
        return "bad"

    first = list(classes)

    def good_follows(index: int) -> bool:
        distance, index = 0, index + 1
        while index < len(classes) and distance <= MAX_HEADING_DISTANCE:
            if classes[index] == "good":
                return True
            distance += page_blocks[index].chars
            index += 1
        return False

    for index, block in enumerate(page_blocks):
        if block.heading and classes[index] == "short" and good_follows(index):
            classes[index] = "neargood"
    revised = {}
    for index, kind in enumerate(classes):
        if kind != "short":
            continue
        before, after = neighbour(index, -1, False), neighbour(index, 1, False)
        if before == after:
            revised[index] = before
        elif (before == "bad" and neighbour(index, -1, True) == "neargood") or (
            after == "bad" and neighbour(index, 1, True) == "neargood"
        ):
            revised[index] = "good"
        else:
            revised[index] = "bad"
    for index, kind in revised.items():
        classes[index] = kind
    for index, kind in enumerate(classes):  # in order: a revised block is a neighbour already
        if kind == "neargood":
            around = (neighbour(index, -1, False), neighbour(index, 1, False))
            classes[index] = "bad" if around == ("bad", "bad") else "good"
    for index, block in enumerate(page_blocks):
        heading_kept = block.heading and first[index] != "bad"
        if heading_kept and classes[index] == "bad" and good_follows(index):
            classes[index] = "good"
    return [kind == "good" for kind in classes]


def choose(page_blocks: list[Block], texts: list[str], rules: Rules) -> list[bool]:
    """For each block, whether enough voters voted for it (three of four by default): each
    extractor's text (texts, in the order of rules.voters) votes for the blocks it holds most
    of, and jusText's rules vote on the blocks themselves (abstaining, one vote fewer needed,
    when they find no good block at all).

    With context, a short block (a few words: a heading, a label, a link) needs a kept long
    block next to it: the words of a menu item are easily found somewhere in an article.
    """
    voters = [_Reading(text) for text in texts]
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

    def votes(index: int, block: Block, wanted: Counter[tuple[str, ...]]) -> int:
        found = [v.returns(block.words, wanted) for v in voters]
        count = sum(found)
        if pair:
            both = [found[i] for i in pair]
            count -= sum(both)
            count += all(both) if rules.pair == "both" else any(both)
        return count + (good[index] if good else 0)

    is_long = [len(b.words) >= SHORT for b in page_blocks]
    # Long blocks first, in order (an extractor's text is used up block by block); a short
    # block uses nothing up, and with context it is only looked at beside a kept long block.
    everyone = len(extractors) - (len(pair) // 2) + (1 if good else 0)

    def enough(block: Block, count: int) -> bool:
        linked = rules.links is not None and block.link_chars > rules.links * block.chars
        return count >= (everyone if linked else needed)

    kept: list[bool | None] = [
        enough(b, votes(i, b, _shingles(b.words))) if long else None
        for i, (b, long) in enumerate(zip(page_blocks, is_long, strict=True))
    ]
    if rules.context:
        before, after = _nearest(kept), _nearest(kept[::-1])[::-1]
    else:
        before = after = [True] * len(kept)
    empty: Counter[tuple[str, ...]] = Counter()
    return [
        bool(k) if long else (b or a) and votes(i, block, empty) >= needed
        for i, (block, k, long, b, a) in enumerate(
            zip(page_blocks, kept, is_long, before, after, strict=True)
        )
    ]


def _nearest(decisions: list[bool | None]) -> list[bool]:
    """For each position, the last long block's decision before it (False at the start)."""
    out, last = [], False
    for decision in decisions:
        out.append(last)
        if decision is not None:
            last = decision
    return out


def prune(root: Any, page_blocks: list[Block], kept: list[bool]) -> Any | None:
    """The smallest subtree holding every kept block, with the other blocks' text removed,
    emptied elements dropped, and images kept only next to a kept block."""
    if not any(kept):
        return None
    for block, keep in zip(page_blocks, kept, strict=True):
        if not keep:
            for element, slot in block.pieces:
                setattr(element, slot, None)
    top = _common_ancestor(
        element if slot == "text" else element.getparent()
        for block, keep in zip(page_blocks, kept, strict=True)
        if keep
        for element, slot in block.pieces
    )
    _drop_lone_images(top, page_blocks, kept)
    _drop_empty(top)
    while True:
        children = [c for c in top if isinstance(c.tag, str)]
        if len(children) != 1 or (top.text or "").strip():
            return top
        if any((c.tail or "").strip() for c in children):
            return top
        top = children[0]


def _common_ancestor(elements: Iterable[Any]) -> Any:
    """The deepest element holding all the given ones."""
    path: list[Any] = []
    on_path: dict[Any, int] = {}
    for element in elements:
        if not path:
            path = [element, *element.iterancestors()][::-1]
            on_path = {e: depth for depth, e in enumerate(path)}
            continue
        while element not in on_path:
            element = element.getparent()
        depth = on_path[element]
        for gone in path[depth + 1 :]:
            del on_path[gone]
        del path[depth + 1 :]
    return path[-1]


_KEEP_EMPTY = frozenset({"img", "br", "hr"})


def _drop_lone_images(root: Any, page_blocks: list[Block], kept: list[bool]) -> None:
    owner: dict[Any, int] = {}
    for index, block in enumerate(page_blocks):
        for element, _ in block.pieces:
            owner.setdefault(element, index)
    previous = -1
    images = []
    for element in root.iter():
        if element in owner:
            previous = owner[element]
        elif element.tag == "img":
            images.append((element, previous))
    for image, before in images:
        after = before + 1
        near = (before >= 0 and kept[before]) or (after < len(kept) and kept[after])
        if not near or not image.get("src"):
            image.drop_tree()


def _drop_empty(element: Any) -> bool:
    """Remove descendants with neither text nor kept images; True when element is empty."""
    empty = not (element.text or "").strip()
    children = [c for c in element if isinstance(c.tag, str)]
    for comment in [c for c in element if not isinstance(c.tag, str)]:
        comment.drop_tree()
    emptied = [_drop_empty(child) and child.tag not in _KEEP_EMPTY for child in children]
    in_row = element.tag == "tr" and not all(emptied)  # a row keeps its empty cells in place
    for child, gone in zip(children, emptied, strict=True):
        if gone and not in_row:
            child.drop_tree()
        else:
            empty = False
        if (child.tail or "").strip():
            empty = False
    return empty and element.tag not in _KEEP_EMPTY


# The rules that raise the cross-validated F1 (bench/content.py): the clean-ups named here
# (nested_teasers changes no page of it, comment_threads none the others do not), and lines of
# link text needing every vote (above 80% link text; 50% and 90% do less).
DEFAULT = Rules(cleanups=("named_boilerplate", "split_body", "reply_forms"), links=0.8)


def main_content(doc: Any, rules: Rules = DEFAULT) -> Any | None:
    """The main content of a parsed page (pruned in place) or None when nothing substantial
    is found."""
    body = doc.find("body")
    if body is None:
        return None
    for name in rules.cleanups:
        boilerplate.CLEANUPS[name](body)
    page_blocks = blocks(body)
    kept = choose(page_blocks, readings(doc, rules.voters), rules)
    if sum(len(b.words) for b, k in zip(page_blocks, kept, strict=True) if k) < MIN_MAIN_WORDS:
        return None
    return prune(body, page_blocks, kept)
