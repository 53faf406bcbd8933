"""Page clean-up before main-content selection: what a thread draws beside each of its posts.

- The author's column: an `<aside>` in each of POST_ASIDES or more sibling `<article>`s (a
  member's name, rank, reputation, join date beside every post); never an article's own aside
  (a pull quote, its key points), which no sibling article repeats.
- The author's box, by its names: an element whose class or id pairs a poster's word ("user",
  "author", "member") with a box's ("info", "details", "stats"...), as `message-userDetails` or
  `user-info`, when at least POST_BOXES elements of the page are named so (one under every
  post; an article's one author box is its byline), and only when together they hold less
  than DOMINANT of the page's words (a team page's members' boxes are its text); never one
  holding the title.

Both work on a parsed page (lxml) in place and only remove nodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lxml import etree

from ._boilerplate import DOMINANT, words
from ._names import may_be_named, parts_of

POST_ASIDES = 3  # sibling articles holding an aside each: a thread's posts with their authors
POST_BOXES = 3  # elements named as an author's box: one beside each post of a thread

POSTER_WORDS = frozenset({"user", "author", "poster", "member"})
BOX_WORDS = frozenset({"info", "details", "extras", "stats", "profile"})
_ANY_POSTER = re.compile("|".join(sorted(POSTER_WORDS)), re.IGNORECASE)


def drop_post_asides(body: Any) -> None:
    """The author's column beside each post of a thread (an `<aside>` in each of POST_ASIDES or
    more sibling `<article>`s: a rank, a reputation), never an article's own (a pull quote)."""
    posts: dict[Any, dict[Any, list[Any]]] = {}
    for aside in body.iter("aside"):
        above = next(aside.iterancestors("aside", "article"), None)  # the nearest around it
        if above is not None and above.tag == "article":
            posts.setdefault(above.getparent(), {}).setdefault(above, []).append(aside)
    for articles in posts.values():
        if len(articles) >= POST_ASIDES:
            for asides in articles.values():
                for aside in asides:
                    aside.drop_tree()


def drop_author_boxes(body: Any) -> None:
    """The author's box beside each post, by its names (`message-userDetails`, `user-info`): the
    outermost elements named so, when POST_BOXES or more hold less than DOMINANT of the page."""
    if not may_be_named(body, POSTER_WORDS) or not may_be_named(body, BOX_WORDS):
        return
    found: list[Any] = []
    for element in body.iter(etree.Element):
        names = f"{element.get('class', '')} {element.get('id', '')}"
        if element.tag in ("article", "main") or not _ANY_POSTER.search(names):
            continue
        parts = set(parts_of(names))
        if parts & POSTER_WORDS and parts & BOX_WORDS:
            found.append(element)
    named = set(found)
    outermost = [e for e in found if not any(a in named for a in e.iterancestors())]
    if len(outermost) < POST_BOXES or sum(map(words, outermost)) >= DOMINANT * words(body):
        return  # an article's byline; a team page's members, most of its text
    for element in outermost:
        if not any(True for _ in element.iter("h1")):
            element.drop_tree()


CLEANUPS: dict[str, Callable[[Any], None]] = {
    "post_asides": drop_post_asides,
    "author_boxes": drop_author_boxes,
}
