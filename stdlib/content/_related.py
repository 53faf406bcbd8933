"""Page clean-up before main-content selection: sections whose heading says they list other
things than the page's own ("Similar items", "Customers also viewed", "You may also like",
"More from this brand", "Related articles"), which shops and blogs draw as cards under the
content and the voters keep with it (a product page read with twelve other products).

A section is the largest element around such a heading that holds no other heading of its
level or above, no `<article>`, `<main>` or h1 and not DOMINANT of the page's words. It goes
unless it is prose (PROSE of its words in paragraphs of PARAGRAPH words or more: an article's
"Related work"), and not when it is only the heading (a flat page of headings and paragraphs).
The shipped rules drop them on product pages only (Rules.related): a collection's "Related
articles" are its content.

The phrases are English. Works on a parsed page (lxml) in place and only removes nodes.
"""

from __future__ import annotations

import re
from typing import Any

from ._boilerplate import DOMINANT, words

_OTHERS = re.compile(
    r"\b(related|similar|also (viewed|bought|purchased|like|love|enjoy)|you (may|might|will|'ll)"
    r" (also )?(like|love|enjoy)|recommended for you|recommendations|more from|complete the look"
    r"|frequently bought|sponsored)\b",
    re.IGNORECASE,
)
_LEVELS = {f"h{n}": n for n in range(1, 7)}
MAX_HEADING_WORDS = 8  # a longer heading is a sentence of the content, not a section's name
PROSE, PARAGRAPH = 0.5, 25  # a section with this share of its words in such paragraphs is prose


def drop_related(body: Any) -> None:
    headings = [h for h in body.iter("h2", "h3", "h4", "h5", "h6") if _says_others(h)]
    if not headings:
        return
    limit = DOMINANT * words(body)
    for heading in headings:
        if not any(a is body for a in heading.iterancestors()):
            continue  # gone with an earlier section
        section = _section(body, heading, limit)
        if words(section) > words(heading) and not _prose(section):
            section.drop_tree()


def _says_others(heading: Any) -> bool:
    """Whether a heading's text names a list of other things than the page's own."""
    said = heading.text_content().split()
    return 0 < len(said) <= MAX_HEADING_WORDS and bool(_OTHERS.search(" ".join(said)))


def _section(body: Any, heading: Any, limit: float) -> Any:
    """The largest element around `heading` holding no other heading of its level or above,
    no article, main or h1, and under `limit` words (the heading itself when none is)."""
    level, top = _LEVELS[heading.tag], heading
    for parent in heading.iterancestors():
        if (
            parent is body
            or parent.tag in ("article", "main")
            or any(
                h is not heading and (h.tag in ("article", "main") or _LEVELS[h.tag] <= level)
                for h in parent.iter("h1", "h2", "h3", "h4", "h5", "h6", "article", "main")
            )
            or words(parent) >= limit
        ):
            break
        top = parent
    return top


def _prose(section: Any) -> bool:
    """Whether PROSE of a section's words or more lie in paragraphs of PARAGRAPH words or more."""
    total = words(section)
    prose = sum(n for n in map(words, section.iter("p")) if n >= PARAGRAPH)
    return prose >= PROSE * total
