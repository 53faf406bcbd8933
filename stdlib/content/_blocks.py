"""A page's text blocks: the text between block-level tags, in document order, with its words,
link share and where it lives in the tree. Pure functions of a parsed page (lxml); no voting."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

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
# A block's words: runs of letters and digits; in the scripts written without spaces between
# words (Chinese, Japanese kana and kanji) each character is one, so that a paragraph there
# counts as long as it reads (a run of characters up to a comma is not one word).
_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# (The two kinds start with different characters, so the common one is tried first.)
WORD = re.compile(rf"[^\W{_UNSPACED}]+|[{_UNSPACED}]{{1,2}}")
_HEADINGS = frozenset(["h1", "h2", "h3", "h4", "h5", "h6"])
_FIGURES = frozenset(["figure", "figcaption"])
_QUOTES = frozenset(["blockquote"])


@dataclass
class Block:
    """One text block of the page: its words, where its text lives in the tree, and how many of
    its characters (spaces collapsed) there are and how many are link text."""

    pieces: list[tuple[Any, str]] = field(default_factory=list)  # (element, "text" | "tail")
    words: list[str] = field(default_factory=list)
    chars: int = 0
    link_chars: int = 0
    copyright: bool = False
    heading: bool = False  # it starts inside a heading (h1-h6)
    figure: bool = False  # it starts inside a figure or its caption (a caption, a credit)
    quote: bool = False  # it starts inside a blockquote (a quotation, an embedded post)

    @property
    def element(self) -> Any:
        """The element its first text lies in: the element itself for its text, the parent for
        a tail."""
        element, slot = self.pieces[0]
        return element if slot == "text" else element.getparent()

    def starts_in(self, headings: int, figures: int, quotes: int) -> None:
        """Where its first text is: how many headings, figures and quotes are open around it."""
        self.heading, self.figure, self.quote = headings > 0, figures > 0, quotes > 0

    def add(self, element: Any, slot: str, text: str, in_link: bool) -> None:
        self.pieces.append((element, slot))
        self.words.extend(WORD.findall(text.lower()))
        size = len(" ".join(text.split())) + 1
        self.chars += size
        if in_link:
            self.link_chars += size
        if "\xa9" in text:
            self.copyright = True


class PageBlocks(list[Block]):
    """A page's blocks in document order, and what _groups counted of them (`layout`): counted
    once, as the page's tree stays as it is while its blocks are read."""

    def __init__(self) -> None:
        super().__init__()
        self.layout: Any = None


def _card(link: Any) -> bool:
    """Whether a link holds a card: two or more elements of its own text that each start a block
    (a tile's name and its price line, a card's heading and its summary)."""
    found = 0
    for element in link.iterdescendants(*BLOCK_TAGS):
        if element.tag != "br" and element.text and not element.text.isspace():
            found += 1
            if found == 2:
                return True
    return False


def blocks(root: Any, cards: bool = False) -> PageBlocks:
    """The page's text blocks in document order: text runs split at block-level tags. `cards`:
    the text of a link holding a card is not link text (_card)."""
    found = PageBlocks()
    current = Block()
    links = headings = figures = quotes = 0  # open <a>, headings, figures, quotes around the text
    card_links: list[Any] = []  # the open links read as cards
    for event, element in etree.iterwalk(root, events=("start", "end", "comment", "pi")):
        tag = element.tag
        if event == "start":
            if tag in BLOCK_TAGS and current.words:
                found.append(current)
                current = Block()
            if tag == "a":
                if cards and _card(element):
                    card_links.append(element)
                else:
                    links += 1
            elif tag in _HEADINGS:
                headings += 1
            elif tag in _FIGURES:
                figures += 1
            elif tag in _QUOTES:
                quotes += 1
            if isinstance(tag, str) and element.text and not element.text.isspace():
                if not current.words:
                    current.starts_in(headings, figures, quotes)
                current.add(element, "text", element.text, links > 0)
            continue
        if event == "end":
            if tag == "a":
                if card_links and card_links[-1] is element:
                    card_links.pop()
                else:
                    links -= 1
            elif tag in _HEADINGS:
                headings -= 1
            elif tag in _FIGURES:
                figures -= 1
            elif tag in _QUOTES:
                quotes -= 1
        if tag in BLOCK_TAGS and current.words:
            found.append(current)
            current = Block()
        if element.tail and not element.tail.isspace() and element is not root:
            if not current.words:
                current.starts_in(headings, figures, quotes)
            current.add(element, "tail", element.tail, links > 0)
    if current.words:
        found.append(current)
    return found


# A block of fewer words has no 4-word shingle: it is judged by its neighbours.
SHORT = 4


def block_level(element: Any) -> Any:
    """The block-level element (one of BLOCK_TAGS) holding `element`, or the root above it."""
    while element.tag not in BLOCK_TAGS and element.getparent() is not None:
        element = element.getparent()
    return element


def shingles(words: list[str]) -> Counter[tuple[str, ...]]:
    return Counter(zip(words, words[1:], words[2:], words[3:], strict=False))
