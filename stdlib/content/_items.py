"""Pages of many items of equal standing (a thread's posts, a product's sections, a listing's
entries): the region whose repeated sibling blocks hold the page's text. Pure functions of blocks.

A group (_groups') is the children of one element that share a shape (tag and class names,
digits left out) and hold text: at least MIN_ITEMS of them. The voters find one article-shaped
run; on such pages that is one item (the question without its answers, one feature section of
many). When the group with the most plain words (words outside links) holds an item the voters
kept and more plain words than the whole answer, every block inside its items that is not mostly
link text is kept too (`widen`). When the voters keep nothing, the widest region (`region`) is the
best group, or else the element with the most plain words, for an answer with a warning. A
reply's quotation of an earlier post the answer holds already is dropped (`quoted`), and so is
a text another element of the answer says again (`said_again`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from ._blocks import SHORT, Block, block_level, shingles
from ._groups import MIN_ITEMS, Group, chrome, groups, plain, shape, tallies, within

_DIGITS = re.compile(r"\d+")
LINKED = 0.5  # a block with more link text than this share of its characters is a link line


def words(page_blocks: list[Block], kept: list[bool]) -> int:
    """The words of the kept blocks."""
    return sum(len(b.words) for b, k in zip(page_blocks, kept, strict=True) if k)


def _inside(block: Block, members: set[Any]) -> bool:
    element = block.element
    return element in members or any(a in members for a in element.iterancestors())


def widen(
    page_blocks: list[Block], kept: list[bool], ratio: float, links: bool, even: bool = False
) -> None:
    """When the group with the most plain words holds a kept block and more than `ratio` times
    the answer's plain words, its items' blocks are kept (link lines too when `links`). With
    `even`, only a group none of whose items holds most of its words."""
    answer = sum(plain(b) for b, k in zip(page_blocks, kept, strict=True) if k)
    found = [g for g in groups(page_blocks, kept) if g.kept]
    if even:
        found = [g for g in found if g.largest <= LARGEST * g.plain]
    if not answer or not found:
        return
    best = max(found, key=lambda g: g.plain)
    if best.plain <= ratio * answer:
        return
    members = set(best.members)
    for index, block in enumerate(page_blocks):
        if kept[index] or not _inside(block, members):
            continue
        if links or block.link_chars <= LINKED * block.chars:
            kept[index] = True


def teasers(
    page_blocks: list[Block], kept: list[bool], ratio: float, entries: bool = False
) -> None:
    """A listing's entries: when the group of same-shaped siblings with the most words (link
    text counted: an entry's title is a link) holds more than `ratio` times the answer's words
    and none of them is kept, every block of its items is kept (the answer was an intro).
    With `entries`, only a group of entries: most of its items hold a link (an entry links to
    its page) and none holds most of its words (the page's sections around the answer, a
    filter's rows, are no listing)."""
    answer = words(page_blocks, kept)
    found = groups(page_blocks, kept, links=True)
    if entries:
        found = [g for g in found if _entries(g)]
    best = max(found, key=lambda g: g.plain, default=None)
    if best is None or best.kept or best.plain <= ratio * answer:
        return
    members = set(best.members)
    for index, block in enumerate(page_blocks):
        if not kept[index] and _inside(block, members):
            kept[index] = True


def kin(page_blocks: list[Block], kept: list[bool], ratio: float) -> None:
    """A thread's other posts: the answer's container (the nearest ancestor of its first long
    block with a class, at most `ratio` times the answer's plain words) has kin, elements of its
    shape elsewhere on the page outside the chrome; when those hold more than `ratio` times the
    answer's plain words it did not keep, their blocks that are not link lines are kept (the
    answers under a question share its post's shape; comments under an article do not)."""
    answer = sum(plain(b) for b, k in zip(page_blocks, kept, strict=True) if k)
    first = next(
        (b for b, k in zip(page_blocks, kept, strict=True) if k and len(b.words) >= 4), None
    )
    if not answer or first is None:
        return
    plains, kept_words, _ = tallies(page_blocks, kept)
    shapes: dict[tuple[str, str], list[Any]] = defaultdict(list)
    for node, count in plains.items():
        if count and isinstance(node.tag, str) and node.get("class"):
            shapes[shape(node)].append(node)
    for node in (first.element, *first.element.iterancestors()):
        if node.tag in ("body", "html") or plains.get(node, 0) > ratio * answer:
            return
        if not node.get("class"):
            continue
        lineage = {node, *node.iterancestors(), *node.iterdescendants()}
        others = [n for n in shapes[shape(node)] if n not in lineage and not chrome(n)]
        unkept = sum(plains[n] - kept_words.get(n, 0) for n in others)
        if len(others) < MIN_ITEMS - 1 or unkept <= ratio * answer:
            continue
        members = set(others)
        for index, block in enumerate(page_blocks):
            if _inside(block, members) and block.link_chars <= LINKED * block.chars:
                kept[index] = True
        return


ENTRY_LINKS = 0.5  # a group of entries: more than this share of its items hold a link
LARGEST = 0.5  # ... and none of them more than this share of its words


def _entries(group: Group) -> bool:
    return group.linked > ENTRY_LINKS * group.with_text and group.largest <= LARGEST * group.plain


def region(page_blocks: list[Block]) -> list[bool]:
    """The widest region of a page where the voters kept nothing: the blocks of its group of
    items with the most plain words, or else of the element outside the chrome with the most;
    link lines left out."""
    none = [False] * len(page_blocks)
    found = groups(page_blocks, none)
    total = sum(plain(b) for b in page_blocks)
    best = max(found, key=lambda g: g.plain, default=None)
    if best is not None and best.plain >= REGION_SHARE * total:
        members = set(best.members)
    else:
        members = {_densest(page_blocks)} - {None}
    return [_inside(b, members) and b.link_chars <= LINKED * b.chars for b in page_blocks]


REGION_SHARE = 0.3  # a group of items holding this share of the page's plain words is its region


def fallback(
    page_blocks: list[Block], kept: list[bool], is_main: bool, least: float, every: bool = False
) -> tuple[list[bool], bool]:
    """(kept, is_main), or the page's widest region and False when the answer is not the main
    content or holds fewer plain words than `least` of the page's and the region holds more
    (plain words, or with `every` all of them: an answer of linked titles is no smaller)."""
    plains = [plain(b) for b in page_blocks]
    answer = sum(w for w, k in zip(plains, kept, strict=True) if k)
    if is_main and answer >= least * sum(plains):
        return kept, is_main
    wider = region(page_blocks)
    if every:
        plains, answer = [len(b.words) for b in page_blocks], words(page_blocks, kept)
    if sum(w for w, k in zip(plains, wider, strict=True) if k) > answer:
        return wider, False
    return kept, is_main


def _densest(page_blocks: list[Block]) -> Any | None:
    """The element (outside the chrome, not the body) with the most plain words of its own
    blocks at the least depth: its words times their share of the page's."""
    plains: dict[Any, int] = defaultdict(int)
    for block in page_blocks:
        count = plain(block)
        if not count:
            continue
        element = block.element
        if chrome(element):
            continue
        for node in (element, *element.iterancestors()):
            if node.tag in ("body", "html"):
                break
            plains[node] += count
    if not plains:
        return None
    most = max(plains.values())
    # The deepest element holding nearly all of the most any element holds: the region itself,
    # not the wrappers around it.
    close = [n for n, w in plains.items() if w >= 0.9 * most]
    return max(close, key=lambda n: sum(1 for _ in n.iterancestors()))


def labels(
    page_blocks: list[Block],
    kept: list[bool],
    most: int,
    times: int,
    linked: bool = False,
    lines: bool = False,
) -> None:
    """Each item's labels: kept blocks of at most `most` words, not headings, whose words are
    those of at least `times` kept blocks ("Share", "Link to comment", "Quote", "Member" under
    every post of a thread) are not kept; an item's own text differs from its siblings'. With
    `linked`, only link lines count (a post's actions, not a table's repeated values), and with
    `lines` also lines outside tables, lists and code and without a figure (a card's price is
    a value); a line of the same words goes with them."""
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    for block, keep in zip(page_blocks, kept, strict=True):
        if not keep or block.heading or len(block.words) > most:
            continue
        if (
            not linked
            or block.link_chars > LINKED * block.chars
            or (lines and not within(block.element, _CELLS) and not _figures(block.words))
        ):
            counts[tuple(block.words)] += 1
    for index, block in enumerate(page_blocks):
        if kept[index] and counts.get(tuple(block.words), 0) >= times and not block.heading:
            kept[index] = False


def _figures(words: list[str]) -> bool:
    """Whether a line holds a figure: a price, a date, a count (a value, never a label)."""
    return any(_DIGITS.search(word) for word in words)


# Where a short line repeats as a value, not as a label: a table's cells, a list's items, code.
_CELLS = frozenset({"table", "ul", "ol", "dl", "pre", "code"})


MIN_TITLES = 6  # linked headings: fewer are a related box's, not a page of entries


def titles(page_blocks: list[Block], kept: list[bool], ratio: float) -> None:
    """A page of entries read as its intro: when at least MIN_TITLES headings that are links
    (the entries' titles, in one grid or in several) lie outside the chrome, none kept, and
    hold more than `ratio` times the answer's words, they are kept (a card's other text then
    comes with `complete`)."""
    found = [
        index
        for index, block in enumerate(page_blocks)
        if block.heading
        and not kept[index]
        and block.link_chars > LINKED * block.chars
        and not chrome(block.element)
    ]
    if len(found) < MIN_TITLES:
        return
    if sum(len(page_blocks[i].words) for i in found) <= ratio * words(page_blocks, kept):
        return
    for index in found:
        kept[index] = True


QUOTED = 0.8  # a quotation whose 4-word runs are this share of an earlier kept block's: a copy


def quoted(page_blocks: list[Block], kept: list[bool]) -> None:
    """A reply's quotation of an earlier post: a kept block inside a blockquote whose 4-word
    runs are mostly found in the kept blocks before it outside quotations is not kept (the
    thread says it once already; an article's quotation of another text stays)."""
    seen: set[tuple[str, ...]] = set()
    for index, block in enumerate(page_blocks):
        if not kept[index] or len(block.words) < SHORT:
            continue
        runs = shingles(block.words)
        if not block.quote:
            seen.update(runs)
        elif sum(1 for r in runs if r in seen) >= QUOTED * len(runs):
            kept[index] = False


ECHO_WINDOW = 3  # a card's title repeated: among the kept blocks just before


def echoes(page_blocks: list[Block], kept: list[bool], most: int | None) -> None:
    """A card's title said again (an image's link, a heading for another layout, a quick-view
    button's): a kept heading or link line of at most `most` words, at least two, that repeats
    word for word one of the ECHO_WINDOW kept blocks before it is not kept (the reader sees it
    once; a price or a value the next card repeats is no title and stays). None: none dropped."""
    if most is None:
        return
    recent: list[tuple[str, ...]] = []
    for index, block in enumerate(page_blocks):
        if not kept[index]:
            continue
        said = tuple(block.words)
        titled = block.heading or block.link_chars > LINKED * block.chars
        if titled and 2 <= len(said) <= most and said in recent:
            kept[index] = False
            continue
        recent = [*recent[1 - ECHO_WINDOW :], said]


# Where a text repeats by design: code (a line a program repeats), a table's cells (a value).
_BY_DESIGN = frozenset({"pre", "code", "td", "th"})
# ... and in a guide, its steps and their headings.
_STEPS = frozenset({"li", "h1", "h2", "h3", "h4", "h5", "h6"})


def said_again(
    page_blocks: list[Block], kept: list[bool], least: int | None, apart: bool, steps: bool = False
) -> None:
    """A text the answer says again (a carousel's cloned slides, a second layout's copy of a
    section, a reply's preview of the post it answers): a kept block of at least `least` words
    repeating word for word an earlier kept block is not kept, never code nor a table's cell.
    With `apart`, only a copy held by another element than its first (an article's own
    repeated line, in its one body, stays). With `steps`, never a list item nor a heading
    either (a tutorial's steps: "Reset the view", "Press Enter"). None: none dropped."""
    if least is None:
        return
    by_design = _BY_DESIGN | _STEPS if steps else _BY_DESIGN
    first: dict[tuple[str, ...], Any] = {}
    for index, block in enumerate(page_blocks):
        said = tuple(block.words)
        if not kept[index] or len(said) < least or within(block.element, by_design):
            continue
        holder = _holder(block.element)
        if said not in first:
            first[said] = holder
        elif not apart or first[said] is not holder:
            kept[index] = False


def _holder(element: Any) -> Any:
    """What holds a block: the parent of the block-level element its text lies in."""
    element = block_level(element)
    return element.getparent() if element.getparent() is not None else element
