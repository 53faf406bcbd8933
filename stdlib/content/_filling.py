"""Blocks the vote missed inside the answer's own region: the headings over kept text, and the
prose of the element that holds the whole answer; and the page's title heading left out of the
answer's start (drop_title_heading). Pure functions of blocks; no voting here.

The voters return runs of paragraphs: a service page's section and card titles, an FAQ's answers
in an accordion, the short sections between a product's paragraphs fall through them, while the
answer around them is kept. Only blocks inside the answer's span are added, never its chrome.
"""

from __future__ import annotations

from itertools import islice, pairwise
from typing import Any

from ._blocks import SHORT, WORD, Block, block_level
from ._boilerplate import COMMENT_WORDS
from ._groups import groups, is_chrome, tallies
from ._items import LINKED
from ._names import name_parts
from ._page_type import declares_article
from ._rules import Rules


def widen(page_blocks: list[Block], kept: list[bool], rules: Rules) -> None:
    """The region's prose (`rules.fill`), then the headings over kept text (`rules.headings`),
    then the items of the groups read in part (`rules.complete`)."""
    article = any(kept) and declares_article(page_blocks[0].element.getroottree())
    if rules.fill is not None and any(kept):
        short = rules.fill_else_words
        if rules.fill_else_articles and not article:
            short = 0  # only an article's answer of many words is its prose, not one section
        fill(
            page_blocks,
            kept,
            rules.fill,
            rules.fill_region,
            rules.fill_grow,
            rules.fill_else,
            short,
            rules.fill_prose,
        )
    if rules.inner_links and any(kept):
        inner_links(page_blocks, kept)
    if rules.introduced and any(kept):
        introduced(page_blocks, kept)
    if rules.headings:
        headings(page_blocks, kept)
    if rules.complete is not None and any(kept):
        every = rules.complete_all and (rules.complete_all_articles or not article)
        complete(page_blocks, kept, rules.complete, rules.complete_size, every)


def headings(page_blocks: list[Block], kept: list[bool]) -> None:
    """A heading after the answer's first kept block whose next long block outside headings is
    kept (a section's or a card's title over kept text) is kept; never one that is mostly link
    text (a teaser's title) nor one above the answer (the page's headline)."""
    start = next((i for i, k in enumerate(kept) if k), len(kept))
    following = False  # whether the next long block after the position is kept
    for index in range(len(page_blocks) - 1, start, -1):
        block = page_blocks[index]
        if block.heading:
            if following and not kept[index] and block.link_chars <= LINKED * block.chars:
                kept[index] = True
        elif len(block.words) >= SHORT:
            following = kept[index]


def lead(page_blocks: list[Block], kept: list[bool]) -> None:
    """The page's lead: the blocks of prose between the page's title (an h1 at most LEAD_GAP
    blocks above the answer) and the answer's first kept block are kept (a service page's pitch
    under its title, a collection's intro, a guide's summary); nothing when no h1 is so near."""
    start = next((i for i, k in enumerate(kept) if k), None)
    if start is None:
        return
    title = next(
        (i for i in range(start - 1, max(-1, start - 1 - LEAD_GAP), -1) if _titles(page_blocks[i])),
        None,
    )
    if title is None:
        return
    for index in range(title + 1, start):
        block = page_blocks[index]
        if len(block.words) >= SHORT and block.link_chars <= LINKED * block.chars:
            kept[index] = True


LEAD_GAP = 5  # the lead's title: an h1 at most this many blocks above the answer's first


def _titles(block: Block) -> bool:
    """Whether the block is (in) an h1."""
    element = block.element
    return (
        block.heading
        and element is not None
        and (element.tag == "h1" or any(a.tag == "h1" for a in element.iterancestors("h1")))
    )


def introduced(page_blocks: list[Block], kept: list[bool]) -> None:
    """A list that a kept block introduces is kept, its link lines left out: the block's text
    ends with a colon and the list (<ul> or <ol>) is the next element after the block-level
    element holding it (the steps after "You will learn how to:", the reasons after "what I
    like about it:"; short items the vote passes over, under a sentence it kept)."""
    for index, block in enumerate(page_blocks):
        if not kept[index] or not _ends_with_colon(block):
            continue
        follows = _next_list(block.element)
        if follows is None:
            continue
        for later in range(index + 1, len(page_blocks)):
            item = page_blocks[later]
            if follows not in item.element.iterancestors():
                break
            if item.link_chars <= LINKED * item.chars:
                kept[later] = True


def _ends_with_colon(block: Block) -> bool:
    element, slot = block.pieces[-1]
    text = element.text if slot == "text" else element.tail
    return (text or "").rstrip().endswith(":")


def _next_list(element: Any) -> Any | None:
    """The <ul> or <ol> right after the block-level element holding `element`, else None."""
    after = block_level(element).getnext()
    while after is not None and not isinstance(after.tag, str):  # a comment between
        after = after.getnext()
    return after if after is not None and after.tag in ("ul", "ol") else None


def inner_links(page_blocks: list[Block], kept: list[bool]) -> None:
    """The link lines between kept prose are kept: an unkept block that is mostly link text
    whose nearest long blocks of prose (not link lines) before and after it are kept, inside
    the nearest element holding both, at most INNER_DEPTH levels above each (one section's
    text, not the page's layout), with nothing of the chrome, comments or an author's box
    between (a list of forms or permits inside a section's text)."""
    prose = [
        i
        for i, b in enumerate(page_blocks)
        if len(b.words) >= SHORT and b.link_chars <= LINKED * b.chars
    ]
    for before, after in pairwise(prose):
        if after - before < 2 or not (kept[before] and kept[after]):
            continue
        first, last = page_blocks[before].element, page_blocks[after].element
        region = _common(first, last)
        if region is None or region.tag in ("body", "html"):
            continue
        if not (_near(first, region) and _near(last, region)):
            continue  # two texts of the page's wider layout, not one section's
        answer = {region, *region.iterancestors()}
        for index in range(before + 1, after):
            block = page_blocks[index]
            if not kept[index] and _within(block.element, region, answer):
                kept[index] = True


INNER_DEPTH = 2  # the link lines' region: at most this many levels above each prose block


def _near(element: Any, region: Any) -> bool:
    return region in islice(element.iterancestors(), INNER_DEPTH)


def fill(
    page_blocks: list[Block],
    kept: list[bool],
    least: int,
    region: str = "common",
    grow: float = 0,
    otherwise: str = "",
    short: int = 0,
    prose: bool = False,
) -> None:
    """The blocks of at least `least` words, not link lines nor beside the content (_within),
    inside the answer's region are kept: with `region` "common", the nearest element holding
    every kept block (the first and the last kept one's common ancestor); "main", the page's
    <main> (or role=main) around that; "column", that <main> or, without one, the content
    column around it (_column). Never the page's body, and only when what they add holds
    more than `grow` times the answer's words (the answer was one section of many, not an
    article with its margins). With "column" and `otherwise`, a page with neither (no frame
    marked by tag or role) reads `otherwise`'s region: "common", the nearest element holding
    the answer; "page", the body's child holding it (the page's wrapper, chrome left out); with
    `short`, only for an answer of fewer words (one section, not an article's run of prose).
    With `prose`, the region is found around the answer's blocks that are not link lines (a
    menu item the vote kept far from the answer would widen it to the page)."""
    chosen = [b for b, k in zip(page_blocks, kept, strict=True) if k]
    if not chosen:
        return
    ends = [b for b in chosen if b.link_chars <= LINKED * b.chars] if prose else chosen
    ends = ends or chosen
    found = _common(ends[0].element, ends[-1].element)
    if found is not None and region in ("main", "column"):
        common = found
        main = next((n for n in (found, *found.iterancestors()) if _is_main(n)), None)
        found = main if main is not None or region == "main" else _column(found)
        size = sum(len(b.words) for b in chosen)
        if found is None and region == "column" and otherwise and (not short or size < short):
            found = common if otherwise == "common" else _wrapper(common)
    if found is None or found.tag in ("body", "html"):
        return
    answer = {ends[0].element, *ends[0].element.iterancestors()}  # held: one proxy a node
    added = [
        i
        for i, (block, keep) in enumerate(zip(page_blocks, kept, strict=True))
        if not keep
        and len(block.words) >= least
        and block.link_chars <= LINKED * block.chars
        and _within(block.element, found, answer)
    ]
    more = sum(len(page_blocks[i].words) for i in added)
    if more <= grow * sum(len(b.words) for b in chosen):
        return
    for index in added:
        kept[index] = True


# What marks a page's own header, footer and menus beside its content column.
FRAME_TAGS = frozenset({"header", "footer", "nav"})
FRAME_ROLES = frozenset({"banner", "contentinfo", "navigation"})


def _column(element: Any) -> Any | None:
    """The page's content column around an element, on a page without <main>: its outermost
    ancestor whose parent holds no header, footer or menu of the page's frame (by tag or role)
    beside it; None when that is the body's own child wrapping the whole page."""
    for node in (element, *element.iterancestors()):
        parent = node.getparent()
        if parent is None or parent.tag in ("body", "html"):
            return None
        if any(c.tag in FRAME_TAGS or c.get("role") in FRAME_ROLES for c in parent):
            return node
    return None


def _wrapper(element: Any) -> Any | None:
    """The body's child holding the element (the page's wrapper), or None for the body."""
    for node in (element, *element.iterancestors()):
        parent = node.getparent()
        if parent is not None and parent.tag == "body":
            return node
    return None


def complete(
    page_blocks: list[Block],
    kept: list[bool],
    least: int,
    size: int | None = None,
    every: bool = False,
) -> None:
    """The items of each group of same-shaped siblings (_groups.groups) of which at least `least`
    hold a kept block, and of at most `size` words: each such item's other blocks are kept,
    link lines too, never one in the chrome (a card read in part: its linked title, its price;
    its basket button's form stays out). With `every`, the group's items holding no kept block
    are kept too (the one step of a guide's grid the voters passed over)."""
    words, kept_words, _ = tallies(page_blocks, kept, links=True)
    items: set[Any] = set()
    for group in groups(page_blocks, kept, links=True):
        held = [m for m in group.members if kept_words.get(m)]
        if len(held) >= least:
            chosen = group.members if every else held
            items.update(m for m in chosen if size is None or words[m] <= size)
    if not items:
        return
    for index, block in enumerate(page_blocks):
        if kept[index]:
            continue
        for node in (block.element, *block.element.iterancestors()):
            if is_chrome(node):
                break
            if node in items:
                kept[index] = True
                break


def _is_main(element: Any) -> bool:
    return bool(element.tag == "main" or element.get("role") == "main")


# Whole words of class and id names of what lies beside an article in its <main>: its readers'
# comments and its author's box.
BESIDE = COMMENT_WORDS | {"author"}


def _within(element: Any, region: Any, answer: set[Any]) -> bool:
    """Whether the element lies inside the region with nothing between that is not content:
    chrome (an aside, a form), an element named as comments or an author's box, or another
    <article> than the answer's own (a teaser's card, a comment)."""
    for node in (element, *element.iterancestors()):
        if node is region:
            return True
        if is_chrome(node):
            return False
        if node.tag == "article" and node not in answer:
            return False
        names = node.get("class") or node.get("id")
        if names and set(name_parts(node)) & BESIDE:
            return False
    return False


def _common(first: Any, last: Any) -> Any | None:
    """The nearest element holding both (the first kept block's ancestors, innermost first)."""
    around = {last, *last.iterancestors()}
    return next((n for n in (first, *first.iterancestors()) if n in around), None)


def drop_title_heading(doc: Any, page_blocks: list[Block], kept: list[bool]) -> None:
    """The first kept block is not kept when it is a heading whose words are a run of at least
    half of the words of the page's <title> ("Headline" of "Headline | Site")."""
    first = next((i for i, k in enumerate(kept) if k), None)
    if first is None or not page_blocks[first].heading:
        return
    title = WORD.findall(" ".join(doc.xpath("string(//head/title)").split()).lower())
    heading = page_blocks[first].words
    if not heading or 2 * len(heading) < len(title):
        return
    if f" {' '.join(heading)} " in f" {' '.join(title)} ":
        kept[first] = False
