"""When the vote kept little: one voter's wider reading kept too (`lone`). Pure functions of
blocks; the voting itself is _selection's, passed in.

The voters disagree on pages of many sections (a service page, a product's description beside
its specifications, a collection's intro): two of them return one section, the third all of
them, and the vote keeps the one. When the answer holds less than a share of what one voter
returned (trafilatura, or readability when it returned far more: trafilatura's own choice), that
voter's blocks are kept too; with `lone_justext`, jusText's good blocks on the page's own blocks
the same way, for pages where every extractor returned one small part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from . import _items as items
from ._blocks import Block
from ._rules import Rules
from ._voters import justext_votes, read

Choose = Callable[[list[Block], list[str], Rules], list[bool]]


def widen(
    page_blocks: list[Block], kept: list[bool], texts: list[str], rules: Rules, choose: Choose
) -> list[bool]:
    """kept, and the blocks `rules.lone`'s voter returned when the answer holds fewer words
    than its share of that voter's text. With `lone_after`, only its blocks after the answer's
    first (never a headline or a box above it; not when the answer holds fewer words than
    `lone_anchor`: a line at the page's end anchors nothing), and with `lone_links`, not its
    link lines of fewer words (a menu, an archive, the voter took in); what is left must still
    hold more than the answer by that share, or the answer stands."""
    assert rules.lone is not None
    name, share = rules.lone
    extractors = [n for n in rules.voters if n != "justext"]
    if name not in extractors:
        return kept
    text = texts[extractors.index(name)]
    if rules.rival is not None and "readability" in extractors:
        other = texts[extractors.index("readability")]
        if read(other).words > rules.rival * read(text).words:
            name, text = "readability", other
    answer = items.words(page_blocks, kept)
    if answer >= share * read(text).words:
        return kept
    alone = _unlinked(
        page_blocks,
        choose(page_blocks, [text], replace(rules, voters=(name,), votes=1, pair="apart")),
        rules,
    )
    if rules.lone_after and answer >= rules.lone_anchor:
        start = next((i for i, k in enumerate(kept) if k), -1)
        alone = [a and i > start for i, a in enumerate(alone)]
    merged = [k or a for k, a in zip(kept, alone, strict=True)]
    filtered = rules.lone_links or rules.lone_after
    if filtered and answer >= share * items.words(page_blocks, merged):
        return kept
    return merged


def justext(page_blocks: list[Block], kept: list[bool], rules: Rules) -> list[bool]:
    """kept, and jusText's good blocks (not its short link lines) when the answer holds fewer
    words than `rules.lone_justext` of theirs: every extractor returned one small part."""
    assert rules.lone_justext is not None
    good = _unlinked(page_blocks, justext_votes(page_blocks), rules)
    if items.words(page_blocks, kept) >= rules.lone_justext * items.words(page_blocks, good):
        return kept
    return [k or g for k, g in zip(kept, good, strict=True)]


def _unlinked(page_blocks: list[Block], chosen: list[bool], rules: Rules) -> list[bool]:
    """chosen without its link lines of fewer than `rules.lone_links` words (0: all kept)."""
    if not rules.lone_links:
        return chosen
    return [
        c and (b.link_chars <= items.LINKED * b.chars or len(b.words) >= rules.lone_links)
        for c, b in zip(chosen, page_blocks, strict=True)
    ]
