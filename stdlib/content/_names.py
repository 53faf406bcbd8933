"""What elements are named: the words of an element's class and id names, and whether any
element of a page could be named with a word at all (the quick test before a clean-up's pass
over every element).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from typing import Any, cast

from lxml import etree

_NAME_PARTS = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])")
_NAMES = etree.XPath(
    "descendant-or-self::*/@class | descendant-or-self::*/@id", smart_strings=False
)


def parts_of(names: str) -> list[str]:
    """The lowercase words of class and id names ("relatedPosts": related, posts)."""
    return [part.lower() for part in _NAME_PARTS.findall(names)]


def name_parts(element: Any) -> list[str]:
    """The lowercase words of an element's class and id names ("relatedPosts": related, posts)."""
    return parts_of(f"{element.get('class', '')} {element.get('id', '')}")


class _PageNames:
    """Every class and id name of the last page asked about, lowered, in one string. A clean-up
    only removes or moves elements, so what a page was named before its clean-ups holds every
    name it still has; a page whose names hold none of a clean-up's words is passed over."""

    def __init__(self) -> None:
        self.page: weakref.ref[Any] | None = None
        self.names = ""

    def of(self, body: Any) -> str:
        if self.page is None or self.page() is not body:
            self.page, self.names = (
                weakref.ref(body),
                "\0".join(cast("list[str]", _NAMES(body))).lower(),
            )
        return self.names


_page_names = _PageNames()


def may_be_named(body: Any, words: Iterable[str]) -> bool:
    """Whether some element in body (or body) may hold one of the lowercase words in its class or
    id names, in any case: False only when none can (a cheap test before a pass over every
    element; the names are read once a page)."""
    names = _page_names.of(body)
    return any(word in names for word in words)
