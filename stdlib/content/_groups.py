"""What a page's blocks count for each element, counted once a page: each element's words
(plain, outside links, or all of them), the elements holding link text, and the page's groups
of same-shaped siblings holding text. _items, _filling and _layers read pages of many items by
them. Pure functions of blocks.

A group is the children of one element that share a shape (tag and class names, digits left
out) and hold text: at least MIN_ITEMS of them, none in the chrome. The counts of a page's
blocks are made once (`_layout`), held by its `PageBlocks` (_blocks.blocks): the page's tree
stays as it is while it is read (_selection.main_region reads its blocks after the clean-ups,
prunes after the reading). What is kept changes rule by rule: only the kept words are counted
at each call.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, cast

from ._blocks import Block, PageBlocks

MIN_ITEMS = 3  # siblings of one shape: fewer are a pair of columns, not a run of items
_DIGITS = re.compile(r"\d+")
# Where a page's chrome lives: never an item group nor a widest region.
CHROME = frozenset({"nav", "header", "footer", "aside", "form", "select", "menu"})
# ... and the landmark roles that say the same of another element (a <div role="navigation">).
CHROME_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"}
)


@dataclass
class Group:
    """Same-shaped children of one element holding text, and what they hold."""

    parent: Any
    members: list[Any] = field(default_factory=list)
    plain: int = 0  # words outside links in its members
    kept: int = 0  # plain words of kept blocks in its members
    with_text: int = 0  # members holding words
    largest: int = 0  # the words of its member holding the most
    linked: int = 0  # members holding a link with words


def plain(block: Block) -> int:
    """A block's words outside links (its words less its link share)."""
    return round(len(block.words) * (1 - block.link_chars / max(1, block.chars)))


def within(element: Any, tags: frozenset[str]) -> bool:
    """Whether the element or one of its ancestors is one of `tags`."""
    return element.tag in tags or any(True for _ in element.iterancestors(*tags))


def is_chrome(element: Any) -> bool:
    """Whether the element itself is a part of the page's chrome: one of CHROME, or an element
    with one of CHROME_ROLES."""
    return element.tag in CHROME or element.get("role") in CHROME_ROLES


def chrome(element: Any) -> bool:
    """Whether the element lies in the page's chrome: it or one of its ancestors is_chrome."""
    return any(is_chrome(node) for node in (element, *element.iterancestors()))


def shape(element: Any) -> tuple[str, str]:
    """An element's tag and class names, sorted, digits left out: what a group's members share."""
    return element.tag, _class_shape(element.get("class") or "")


@functools.lru_cache(maxsize=4096)  # a page's few hundred class names, read for every group
def _class_shape(names: str) -> str:
    return _DIGITS.sub("", " ".join(sorted(names.split())))


@dataclass
class _Counts:
    """A page's counts of one kind (plain words, or all of them), whatever is kept."""

    counts: list[int]  # each block's words
    words: dict[Any, int]  # each element's
    with_links: set[Any]  # the elements holding a block with link text
    groups: list[Group]  # none of them kept


@dataclass
class _Layout:
    """What a page's counts of either kind share: each block's element and its ancestors, and
    each element's group key (its parent and shape; None for the root)."""

    lineages: list[tuple[Any, ...]]
    keys: dict[Any, tuple[Any, tuple[str, str]] | None] = field(default_factory=dict)
    counted: dict[bool, _Counts] = field(default_factory=dict)


def _layout(page_blocks: list[Block]) -> _Layout:
    """The page's layout, made once for a PageBlocks (each time for a list made by hand)."""
    if not isinstance(page_blocks, PageBlocks):
        return _Layout([(b.element, *b.element.iterancestors()) for b in page_blocks])
    if page_blocks.layout is None:
        page_blocks.layout = _Layout([(b.element, *b.element.iterancestors()) for b in page_blocks])
    return cast("_Layout", page_blocks.layout)


def _counts(page_blocks: list[Block], layout: _Layout, links: bool) -> _Counts:
    known = layout.counted.get(links)
    if known is not None:
        return known
    counts = [len(b.words) if links else plain(b) for b in page_blocks]
    words: dict[Any, int] = defaultdict(int)
    with_links: set[Any] = set()
    for block, count, nodes in zip(page_blocks, counts, layout.lineages, strict=True):
        if count:
            for node in nodes:
                words[node] += count
            if block.link_chars:
                with_links.update(nodes)
    found: dict[tuple[Any, tuple[str, str]], Group] = {}
    keys = layout.keys
    for node, count in words.items():
        if node not in keys:
            parent = node.getparent()
            keys[node] = (
                None if parent is None or not isinstance(node.tag, str) else (parent, shape(node))
            )
        key = keys[node]
        if key is None:
            continue
        group = found.get(key)
        if group is None:
            group = found[key] = Group(key[0])
        group.members.append(node)
        group.plain += count
        group.largest = max(group.largest, count)
        group.linked += node in with_links
        group.with_text += 1
    enough = [g for g in found.values() if g.with_text >= MIN_ITEMS and not chrome(g.parent)]
    layout.counted[links] = _Counts(counts, dict(words), with_links, enough)
    return layout.counted[links]


# Each element's words, its kept words and the elements holding link text (tallies).
Tallies = tuple[dict[Any, int], dict[Any, int], set[Any]]


def _kept_words(layout: _Layout, counted: _Counts, kept: list[bool]) -> dict[Any, int]:
    kept_words: dict[Any, int] = defaultdict(int)
    for nodes, count, keep in zip(layout.lineages, counted.counts, kept, strict=True):
        if keep and count:
            for node in nodes:
                kept_words[node] += count
    return kept_words


def tallies(page_blocks: list[Block], kept: list[bool], links: bool = False) -> Tallies:
    """Each element's plain words (all its words, link text too, when `links`), its kept ones,
    and the elements holding a block with link text: a block counts for each of its ancestors.
    The first and the last are the page's, shared: never to be changed."""
    layout = _layout(page_blocks)
    counted = _counts(page_blocks, layout, links)
    return counted.words, _kept_words(layout, counted, kept), counted.with_links


def groups(page_blocks: list[Block], kept: list[bool], links: bool = False) -> list[Group]:
    """The page's groups of same-shaped siblings holding text, with their plain and kept words
    (all their words, link text too, when `links`): each block counts for every ancestor's
    child it lies in. Their members are the page's, shared: never to be changed."""
    layout = _layout(page_blocks)
    counted = _counts(page_blocks, layout, links)
    kept_words = _kept_words(layout, counted, kept)
    return [
        dataclasses.replace(g, kept=sum(kept_words.get(m, 0) for m in g.members))
        for g in counted.groups
    ]
