"""Page HTML to what agents read: the main content (chosen in _selection) as Markdown, text or
links, with absolute links; pure functions of HTML text, no browser.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

import lxml.html

from . import _selection as content
from . import _structured
from ._blocks import BLOCK_TAGS
from ._code import code_text
from ._marks import WORDS, destination, edge, emphasis, link_text, only_link
from ._page_type import OTHER, page_type_of
from ._parse import parse

_BLANK_RUNS = re.compile(r"\n{3,}")
# What starts a block of its own: the block-level tags main-content selection cuts the page's
# text at (_blocks.py, the one list), and the document itself; a line break is inline here.
_BLOCKS = (BLOCK_TAGS | {"html"}) - {"br"}
_SPACES = re.compile(r"\s+")
_RUN_OF_SPACES = re.compile(r" {2,}")
_LIST_ITEM = re.compile(r"(- |\d+\. )")
_READABLE = re.compile(r"\w|!\[")  # a word, or an image
_MARKERS = {"strong": "**", "b": "**", "em": "*", "i": "*"}  # emphasis, by tag
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_DROPPED = frozenset({"button", "svg", "iframe", "select", "input", "textarea", "head", "title"})
_TABLE_BLOCKS = ".//table|.//p|.//div|.//ul|.//ol|.//h1|.//h2|.//h3|.//h4|.//pre|.//blockquote"


class _Writer:
    """Blocks of Markdown (or plain text lines) for an element: one pass over the tree."""

    def __init__(self, plain: bool) -> None:
        self.plain = plain
        self.in_code = 0  # inside inline code: its highlighted spans are one text
        self.in_link = 0  # inside a link: its text is one line, with no link of its own

    def blocks(self, element: Any) -> list[str]:
        """The element's content as blocks (paragraphs, headings, lists...) in order."""
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in _DROPPED:
            return []
        if tag in _HEADINGS:
            text = self.inline_of(element)
            if not text:
                return []
            # a heading is one line: a line break inside it (a linked title's <br>) is a space
            one_line = " ".join(line.strip() for line in text.split("\n") if line.strip())
            return [text if self.plain else f"{'#' * _HEADINGS[tag]} {one_line}"]
        if tag == "pre":
            return self.code(element)
        if tag in ("ul", "ol"):
            return self.listing(element, ordered=tag == "ol")
        if tag == "blockquote":
            inner = self.children(element)
            return inner if self.plain or not inner else [_prefixed("\n\n".join(inner), "> ", "> ")]
        if tag == "table":
            if _is_data(element):
                return self.table(element)
            return self.children(element)  # a table laying out the page, not data
        if tag == "hr":
            return [] if self.plain else ["---"]
        if tag == "img":
            image = self.inline(element)
            return [image] if image else []
        return self.children(element)

    def children(self, element: Any) -> list[str]:
        """Blocks of a container: runs of inline content become paragraphs."""
        out: list[str] = []
        run: list[str] = []

        def close() -> None:
            text = "".join(run).strip()
            lines = (_RUN_OF_SPACES.sub(" ", line.strip()) for line in text.split("\n"))
            text = "\n".join(line for line in lines if line)
            if text:
                out.append(text)
            run.clear()

        if element.text:
            run.append(_SPACES.sub(" ", element.text))
        previous = None
        for child in element:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag and tag in _BLOCKS and tag != "img":
                close()
                out.extend(self.blocks(child))
                previous = None
            elif tag:
                self.follow(run, previous, child)
                previous = child
            if child.tail:
                run.append(_SPACES.sub(" ", child.tail))
                previous = None
        close()
        return out

    def inline_of(self, element: Any) -> str:
        return self._inline_raw(element).strip()

    def _inline_raw(self, element: Any) -> str:
        parts = [self.text(element.text)]
        previous = None
        for child in element:
            if isinstance(child.tag, str):
                self.follow(parts, previous, child)
                previous = child
            if child.tail:
                parts.append(self.text(child.tail))
                previous = None
        return "".join(parts)

    def text(self, text: str | None) -> str:
        """A text of the page, its spaces one; in a link's Markdown, its brackets escaped."""
        text = _SPACES.sub(" ", text or "")
        return link_text(text) if self.in_link and not self.in_code and not self.plain else text

    def follow(self, parts: list[str], previous: Any, element: Any) -> None:
        """An inline element's Markdown after `previous`, the element it abuts (or None): set
        apart from it (`joint`), or one emphasis with it when both are of one kind
        (`<b>S</b><b>pecific</b>` is `**Specific**`, never `**S****pecific**`)."""
        space, piece = self.joint(previous, element), self.inline(element)
        marker = _MARKERS.get(element.tag)
        if (
            marker
            and not space
            and previous is not None
            and _MARKERS.get(previous.tag) == marker
            and parts[-1].endswith(marker)
            and piece.startswith(marker)
        ):
            parts[-1], piece = parts[-1][: -len(marker)], piece[len(marker) :]
        parts.append(space + piece)

    def joint(self, previous: Any, element: Any) -> str:
        """A space between two inline elements that abut, a word of letters ending one and
        starting the other (`<span>amount</span><span>integer</span>`, a brand beside a
        product's name): the page sets them apart by its style, and read together they make
        a word the page does not show. Never in code, nor between single letters (a drop
        cap, a heading drawn letter by letter)."""
        if previous is None or self.in_code or element.tag in _DROPPED:
            return ""
        before, after = previous.text_content().rstrip(), element.text_content().lstrip()
        if len(before) < 2 or len(after) < 2 or not (before[-1].isalpha() and after[0].isalpha()):
            return ""
        return " " if before[-2].isalpha() and after[1].isalpha() else ""

    def inline(self, element: Any) -> str:
        tag = element.tag
        if tag in _DROPPED:
            return ""
        if tag == "br":
            return "\n"
        if tag == "img":
            src = element.get("src", "")
            alt = _SPACES.sub(" ", element.get("alt") or element.get("title") or "").strip()
            if self.plain or not src or src.startswith("data:"):
                return ""
            if not alt and any(a.tag == "a" for a in element.iterancestors()):
                return ""  # a link of an image without words: no `[![](…)](…)`, nothing to read
            return f"![{link_text(alt)}]({destination(src)})"
        if tag in _BLOCKS:  # a block inside inline content: flattened (in a link, to its text)
            inner = self._inline_raw(element) if self.in_link else " ".join(self.blocks(element))
            return f" {inner} "
        self.in_code += tag == "code"
        self.in_link += tag == "a"
        raw = self._inline_raw(element)
        self.in_code -= tag == "code"
        self.in_link -= tag == "a"
        text = raw.strip()
        # the space or line break at an inline element's edge stays outside its markers:
        # `<b>BOOK: </b>By` is `**BOOK:** By`, never `**BOOK:**By` (nor "BOOK:By" as text)
        before, after = edge(raw[: len(raw) - len(raw.lstrip())]), edge(raw[len(raw.rstrip()) :])
        if self.plain or not text:
            return before + text + after if text else before or after
        spaced = bool(after) or (element.tail or "x")[:1].isspace()  # a space follows it
        return before + self.marked(element, text, spaced) + after

    def marked(self, element: Any, text: str, spaced: bool) -> str:
        """An inline element's (stripped, non-empty) text in its Markdown markers (`spaced`:
        a space follows it)."""
        tag = element.tag
        if tag == "a":
            href = (element.get("href") or "").strip()
            if href and not href.startswith(("javascript:", "#")) and not self.in_link:
                if self.in_code:  # a code span shows no link: the link goes around the code
                    return text
                return f"[{' '.join(text.split())}]({destination(href)})"
            return text
        marker = _MARKERS.get(tag)
        if marker:
            if len(element):  # its children's Markdown (a link's brackets) is not punctuation
                return f"{marker}{text}{marker}" if WORDS.search(text) else text
            return emphasis(marker, text, spaced)
        if tag == "code":
            link = only_link(element)
            if link is not None and not self.in_link:
                return self.marked(link, f"`{text}`", spaced)
            return f"`{text}`"
        return text

    def code(self, element: Any) -> list[str]:
        code = code_text(element).strip("\n")
        if not code.strip():
            return []
        if self.plain:
            return [code]
        names = " ".join(e.get("class", "") for e in (element, *element.iter("code")))
        language = next((n[9:] for n in names.split() if n.startswith("language-")), "")
        fence = "````" if "```" in code else "```"
        return [f"{fence}{language}\n{code}\n{fence}"]

    def listing(self, element: Any, ordered: bool) -> list[str]:
        items = []
        for number, item in enumerate((c for c in element if c.tag == "li"), start=1):
            inner = self.children(item)
            if not inner or not any(_READABLE.search(block) for block in inner):
                continue  # an empty item, or one of a bullet or a dash only: no `- -` line
            if self.plain:
                items.extend(inner)
                continue
            marker = f"{number}. " if ordered else "- "
            text = inner[0]
            for block in inner[1:]:  # a nested list follows its item's text without a gap
                text += ("\n" if _LIST_ITEM.match(block) else "\n\n") + block
            items.append(_prefixed(text, marker, " " * len(marker)))
        return ["\n".join(items)] if items and not self.plain else items

    def table(self, element: Any) -> list[str]:
        rows = []
        for row in element.iter("tr"):
            cells = [self.inline_of(c).replace("\n", " ") for c in row if c.tag in ("td", "th")]
            if any(cells):
                rows.append(cells)
        if not rows:
            return []
        if self.plain:
            return [" ".join(c for c in cells if c) for cells in rows]
        width = max(len(r) for r in rows)
        lines = []
        for index, cells in enumerate(rows):
            cells = [c.replace("|", "\\|") for c in cells] + [""] * (width - len(cells))
            lines.append("| " + " | ".join(cells) + " |")
            if index == 0:
                lines.append("| " + " | ".join(["---"] * width) + " |")
        return ["\n".join(lines)]


def _is_data(table: Any) -> bool:
    """A table of data: no blocks in its cells, and rows of more than one filled cell."""
    if table.xpath(_TABLE_BLOCKS):
        return False
    rows = table.xpath(".//tr")
    widths = [sum(bool(c.text_content().strip()) for c in r if c.tag in ("td", "th")) for r in rows]
    return len(rows) >= 2 and max(widths, default=0) >= 2


def _prefixed(text: str, first: str, rest: str) -> str:
    lines = text.split("\n")
    return "\n".join(
        [first + lines[0]] + [(rest + line) if line else rest.rstrip() for line in lines[1:]]
    )


def render(element: Any, plain: bool = False) -> str:
    """An element as Markdown (or, plain, as text with every block on lines of its own)."""
    blocks = _Writer(plain).blocks(element)
    text = ("\n" if plain else "\n\n").join(blocks)
    return _BLANK_RUNS.sub("\n\n", text).strip() + "\n"


def select(
    html: str, url: str, only_main: bool, rules: content.Rules = content.DEFAULT
) -> tuple[Any | None, bool]:
    """(element to render, whether it is the main content), links absolute; None: no page."""
    chosen, is_main, _ = _select(html, url, only_main, rules, typed=False)
    return chosen, is_main


def _select(
    html: str, url: str, only_main: bool, rules: content.Rules, typed: bool
) -> tuple[Any | None, bool, str]:
    """select's (element, is_main) and, when `typed`, the page's `pageType` (else "other"),
    read from the same parse before the reading changes it (and then given to the reading's
    rules that ask for it)."""
    structured: list[str] = []
    doc = parse(html, structured)
    if doc is None:
        return None, False, OTHER
    asks = only_main and bool(rules.related or rules.spared)  # a rule that asks for the kind
    kind = page_type_of(doc, structured) if typed or asks else OTHER
    base = _base(doc, url)
    if only_main:
        main, is_main = content.main_region(doc, rules, kind)
        if main is not None:  # the main content, or the page's widest region (is_main False)
            if rules.offers:
                _structured.add_description(main, structured)
            if rules.posts:
                _structured.add_posts(main, structured)
            return _absolute(main, base), is_main, kind
        doc = parse(html)  # the whole page, as it was before pruning
        assert doc is not None  # the same text parsed a moment ago
    body = doc.find("body")
    return _absolute(body if body is not None else doc, base), False, kind


def _base(doc: Any, url: str) -> str | None:
    """The URL links of the page are relative to (its <base href> against its address)."""
    if not url.startswith(("http://", "https://", "file:")):
        return None
    base = doc.xpath("string(//base/@href)").strip()
    return urljoin(url, base) if base else url


def _absolute(element: Any, base: str | None) -> Any:
    """Links and images of the element made absolute, once the element is chosen (cheaper)."""
    if base:
        element.make_links_absolute(base, handle_failures="ignore")
    return element


def to_html(html: str, url: str, only_main: bool = True) -> tuple[str, bool]:
    chosen, is_main = select(html, url, only_main)
    return _as(chosen, "html"), is_main


def to_markdown(
    html: str, url: str, only_main: bool = True, rules: content.Rules = content.DEFAULT
) -> tuple[str, bool]:
    chosen, is_main = select(html, url, only_main, rules)
    return _as(chosen, "markdown"), is_main


def to_text(html: str, url: str, only_main: bool = True) -> tuple[str, bool]:
    """Text with every block (heading, paragraph, list item, table row) on lines of its own."""
    chosen, is_main = select(html, url, only_main)
    return _as(chosen, "text"), is_main


def to_links(html: str, url: str, only_main: bool = True) -> tuple[list[dict[str, str]], bool]:
    chosen, is_main = select(html, url, only_main)
    return ([] if chosen is None else _links(chosen)), is_main


def read_typed(html: str, url: str, fmt: str, only_main: bool) -> tuple[str, bool, str]:
    """(the page in `fmt`: markdown, text, links (a Markdown link a line) or html; whether it
    is the main content; the page's `pageType`), from one parse of the page."""
    chosen, is_main, kind = _select(html, url, only_main, content.DEFAULT, typed=True)
    return _as(chosen, fmt), is_main, kind


def _as(chosen: Any | None, fmt: str) -> str:
    """The chosen element in `fmt` ("" when there is none): markdown, text, links (a Markdown
    link a line) or html."""
    if chosen is None:
        return ""
    if fmt == "markdown":
        return render(chosen)
    if fmt == "text":
        return render(chosen, plain=True)
    if fmt == "links":
        return "".join(f"[{link['text']}]({link['url']})\n" for link in _links(chosen))
    return str(lxml.html.tostring(chosen, encoding="unicode"))


def _links(chosen: Any) -> list[dict[str, str]]:
    """The element's links, each target once, in document order (not script or in-page ones)."""
    seen, links = set(), []
    for a in chosen.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("javascript:", "#")) or href in seen:
            continue
        seen.add(href)
        links.append({"text": " ".join(a.text_content().split()), "url": href})
    return links
