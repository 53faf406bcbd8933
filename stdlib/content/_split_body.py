"""Page clean-up before main-content selection: an article body split by ad rows into several
containers of the same tag and class. The parts are joined into the first, so the selector sees
one body instead of taking the first part.

Only parts in the same frame as the part with the most words are joined. A page builder gives
every widget the same class: its banner, the article, its sidebar and its footer. Joining them
all into the first (the banner's) moved the article into the banner, where the extractors no
longer find it (a 5,000-word article read as its 50-word banner). The frame is the banner,
footer, menu or sidebar (`header`, `footer`, `nav`, `aside`) a part lies in; those of an article
or of `<main>` are the article's own and no frame.

Works on a parsed page (lxml) in place and only moves nodes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ._boilerplate import DOMINANT, MIN_PART_WORDS, words

_FRAMES = frozenset({"header", "footer", "nav", "aside"})


def _frame(element: Any) -> list[Any]:
    """The page's frame regions (a banner, a footer, a menu, a sidebar) that `element` lies in;
    none inside an article or `<main>`."""
    found = []
    for ancestor in element.iterancestors():
        if ancestor.tag in ("main", "article"):
            return []
        if ancestor.tag in _FRAMES:
            found.append(ancestor)
    return found


def _prose(part: Any) -> int:
    return sum(words(p) for p in part.findall("p"))


def join_split_body(body: Any, within: bool = True) -> None:
    """Joins the parts of a body split into containers of one tag and class; `within`: only
    those in the frame of the part with the most words."""
    total = words(body)
    groups: dict[tuple[str, str], list[Any]] = {}
    for element in body.xpath(".//*[@class][p]"):
        name = " ".join(element.get("class").split())
        if name:
            groups.setdefault((element.tag, name), []).append(element)
    for parts in groups.values():
        members = set(parts)
        outermost = [p for p in parts if not any(a in members for a in p.iterancestors())]
        if within and len(outermost) > 1:
            frame = _frame(max(outermost, key=_prose))
            outermost = [p for p in outermost if _frame(p) == frame]
        if len(outermost) < 2:
            continue
        text = [_prose(part) for part in outermost]
        if sum(text) < DOMINANT * total or sum(n >= MIN_PART_WORDS for n in text) < 2:
            continue
        first = outermost[0]
        for part in outermost[1:]:
            for child in list(part):
                first.append(child)
            part.drop_tree()


CLEANUPS: dict[str, Callable[[Any], None]] = {
    "split_body": join_split_body,
    # before 4 December 2026: every part joined, whatever frame it lies in (bench's candidates)
    "split_body_anywhere": functools.partial(join_split_body, within=False),
}
