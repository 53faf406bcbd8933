"""The voters of main-content selection: the texts trafilatura (balanced and precision modes)
and readability return for a page, and jusText's rules on its own blocks; and what one of those
texts returned, as the vote on a page's blocks reads it (`VoterText`: its words, their 4-word
shingles, used up block by block so a repeated block counts once). No selection here."""

from __future__ import annotations

import copy
import functools
from collections import Counter
from collections.abc import Iterable
from typing import Any

import justext
import trafilatura
from trafilatura.external import try_readability

from ._blocks import WORD, Block, shingles

VOTERS = ("trafilatura", "precision", "readability", "justext")


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
    # A tag name lxml parsed but will not match again (control characters, in a page of random
    # bytes) fails an extractor with lxml's ValueError: that extractor reads nothing of the page.
    try:
        texts = _trafilatura_modes(tree, modes)
    except ValueError:
        texts = [""] * len(modes)
    found = dict(zip((n for n in wanted if n != "readability"), texts, strict=True))
    if "readability" in wanted:
        try:
            found["readability"] = str(try_readability(tree).text_content())  # last: it prunes
        except ValueError:
            found["readability"] = ""
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


# An extractor "returned" a block when it holds at least this share of the block's 4-word
# shingles (the votes a block needs: _rules.VOTES).
COVERAGE = 0.5


class VoterText:
    """What one extractor returned, consumed block by block so a repeated block counts once."""

    def __init__(self, text: str) -> None:
        words = WORD.findall(text.lower())
        self.words = len(words)
        self.shingles = shingles(words)
        self.joined = f" {' '.join(words)} "
        self.vocabulary = set(words)

    def fresh(self) -> VoterText:
        """The same reading with none of its shingles used up (counting them again is most of
        a large page's cost)."""
        again = object.__new__(VoterText)
        again.words, again.joined, again.vocabulary = self.words, self.joined, self.vocabulary
        again.shingles = self.shingles.copy()
        return again

    def holds(self, words: list[str], wanted: Counter[tuple[str, ...]]) -> dict[Any, int] | None:
        """The shingles of a block this reading holds when it holds most of the block (its
        words and their shingles), else None; nothing is used up yet (`spend`)."""
        if not wanted:  # fewer than four words: the exact run of words
            vocabulary = self.vocabulary
            found = all(w in vocabulary for w in words) and f" {' '.join(words)} " in self.joined
            return {} if found else None
        have = self.shingles
        got = {s: min(n, have[s]) for s, n in wanted.items() if have.get(s, 0) > 0}
        return got if sum(got.values()) >= COVERAGE * (len(words) - 3) else None

    def spend(self, got: dict[Any, int]) -> None:
        """Use up the shingles a block took, so a repeated block counts once."""
        have = self.shingles
        for shingle, count in got.items():
            have[shingle] -= count


@functools.lru_cache(maxsize=8)
def read(text: str) -> VoterText:
    """A text's reading, made once for one page (_selection.main_region empties this when it
    is done): two extractors often return the same text, and _lone reads them again. Never
    spent: a decision spends a `fresh` copy."""
    return VoterText(text)
