"""Main-content selection by agreement: independent extractors vote on the page's own text blocks.

Pure functions of a parsed page (lxml); no browser, and no rule that names a site, domain or page.

Three extractors that work differently each read the page: trafilatura's own heuristics (fast
mode, no fallback), trafilatura tuned for precision, and readability (Arc90's scoring of
containers). The page is cut into its text blocks (the text between block-level tags, in
document order); a block is main content when at least two of the three extractors returned
most of its text. The page is then pruned to those blocks, so what is kept keeps its own
markup: headings, lists, tables, code, links and the images between kept blocks.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import trafilatura
from lxml import etree
from trafilatura.external import try_readability

from . import _boilerplate as boilerplate

# An extractor "returned" a block when it holds at least this share of the block's 4-word
# shingles; and a block is kept when this many of the extractors returned it (a majority).
COVERAGE = 0.5
VOTES = 2
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


@dataclass
class Block:
    """One text block of the page: its words and where its text lives in the tree."""

    pieces: list[tuple[Any, str]] = field(default_factory=list)  # (element, "text" | "tail")
    words: list[str] = field(default_factory=list)


def blocks(root: Any) -> list[Block]:
    """The page's text blocks in document order: text runs split at block-level tags."""
    found: list[Block] = []
    current = Block()
    for event, element in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        tag = element.tag
        if event == "start":
            if tag in BLOCK_TAGS and current.words:
                found.append(current)
                current = Block()
            if isinstance(tag, str) and element.text and not element.text.isspace():
                current.pieces.append((element, "text"))
                current.words.extend(_WORD.findall(element.text.lower()))
            continue
        if tag in BLOCK_TAGS and current.words:
            found.append(current)
            current = Block()
        if element.tail and not element.tail.isspace() and element is not root:
            current.pieces.append((element, "tail"))
            current.words.extend(_WORD.findall(element.tail.lower()))
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
    text = trafilatura.extract(
        doc,  # trafilatura works on its own copy
        include_comments=False,
        include_tables=True,
        deduplicate=False,
        fast=True,
        favor_precision=precision,
    )
    return text or ""


def _readability(doc: Any) -> str:
    summary = try_readability(copy.deepcopy(doc))  # it prunes the tree it is given
    return str(summary.text_content())


def readings(doc: Any) -> list[str]:
    """The three extractors' texts of a parsed page."""
    return [
        _trafilatura(doc, precision=False),
        _trafilatura(doc, precision=True),
        _readability(doc),
    ]


def choose(page_blocks: list[Block], texts: list[str], rules: Rules) -> list[bool]:
    """For each block, whether enough extractors returned it (a majority by default).

    With context, a short block (a few words: a heading, a label, a link) needs a kept long
    block next to it: the words of a menu item are easily found somewhere in an article.
    """
    voters = [_Reading(text) for text in texts]
    counts = []
    for block in page_blocks:
        wanted = _shingles(block.words)
        counts.append(sum(v.returns(block.words, wanted) for v in voters))
    kept = [n >= rules.votes for n in counts]
    is_long = [len(b.words) >= SHORT for b in page_blocks]
    if rules.context:
        long_kept = [k if long else None for k, long in zip(kept, is_long, strict=True)]
        before, after = _nearest(long_kept), _nearest(long_kept[::-1])[::-1]
        kept = [
            k and (long or b or a)
            for k, long, b, a in zip(kept, is_long, before, after, strict=True)
        ]
    return kept


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
    owner = {}
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


DEFAULT = Rules(cleanups=("nested_teasers", "named_boilerplate", "split_body"))


def main_content(doc: Any, rules: Rules = DEFAULT) -> Any | None:
    """The main content of a parsed page (pruned in place) or None when nothing substantial
    is found."""
    body = doc.find("body")
    if body is None:
        return None
    for name in rules.cleanups:
        boilerplate.CLEANUPS[name](body)
    page_blocks = blocks(body)
    kept = choose(page_blocks, readings(doc), rules)
    if sum(len(b.words) for b, k in zip(page_blocks, kept, strict=True) if k) < MIN_MAIN_WORDS:
        return None
    return prune(body, page_blocks, kept)
