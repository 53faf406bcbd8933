"""Page HTML to what agents read: main-content selection (trafilatura) and HTML→Markdown
(markdownify) with absolute links; pure functions of HTML text, no browser.
"""

from __future__ import annotations

import re
from typing import Any

import lxml.html
import trafilatura
from markdownify import MarkdownConverter

from . import _boilerplate as boilerplate

MIN_MAIN_WORDS = 10
_BLANK_RUNS = re.compile(r"\n{3,}")


class _Converter(MarkdownConverter):  # type: ignore[misc]
    """markdownify, with code blocks fenced and scripts, styles and forms dropped."""

    def convert_pre(self, el: Any, text: str, parent_tags: Any) -> str:
        code = el.get_text()
        return f"\n\n```\n{code.strip(chr(10))}\n```\n\n" if code.strip() else ""


def _convert(html: str) -> str:
    converter = _Converter(
        heading_style="ATX",
        bullets="-",
        strip=["script", "style", "noscript", "form", "button", "svg", "iframe"],
        escape_underscores=False,
        escape_asterisks=False,
    )
    markdown: str = converter.convert(html)
    return _BLANK_RUNS.sub("\n\n", markdown).strip() + "\n"


def _page(html: str, url: str) -> Any | None:
    """The parsed page, every link and image URL absolute against the page's URL, scripts and
    styles dropped; None when there is nothing to parse."""
    if not html.strip():
        return None
    try:
        doc = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return None
    if url.startswith(("http://", "https://", "file:")):
        doc.make_links_absolute(url, resolve_base_href=True, handle_failures="ignore")
    for node in doc.xpath("//script|//style|//noscript|//template"):
        node.drop_tree()
    return doc


_OPTIONS: dict[str, Any] = {
    "output_format": "html",
    "include_comments": False,
    "include_tables": True,
    "include_links": True,
    "include_formatting": True,
    "deduplicate": False,
}
_BLOCKS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "td", "th")


def _key(element: Any) -> str:
    return " ".join(re.findall(r"\w+", element.text_content().lower()))


def _with_images(text_doc: Any, image_doc: Any) -> None:
    """Put the images of the image-aware selection after the text block they follow.

    Selecting with images on also pulls in captions, photo credits and related-media titles;
    selecting without them gives the cleaner text. So the text comes from the text-only pass
    and only the images (with their alt text) from the other, anchored to shared blocks."""
    anchors: dict[str, Any] = {}
    for block in text_doc.iter(*_BLOCKS):
        anchors.setdefault(_key(block), block)
    last = None
    for element in image_doc.iter("img", *_BLOCKS):
        if element.tag != "img":
            last = anchors.get(_key(element), last)
            continue
        image = lxml.html.Element("img", src=element.get("src", ""), alt=element.get("alt", ""))
        if last is not None:
            last.addnext(image)
            last = image
        else:
            text_doc.insert(0, image)


def main_html(doc: Any, url: str) -> str | None:
    """The main content of a parsed page as HTML, or None when nothing substantial is found.

    The page is cleaned of boilerplate in place first."""
    boilerplate.clean(doc)
    html = lxml.html.tostring(doc, encoding="unicode")
    text_only = trafilatura.extract(html, url=url or None, **_OPTIONS)
    if not text_only:
        return None
    main = lxml.html.fromstring(text_only)
    if len(re.findall(r"\w+", main.text_content())) < MIN_MAIN_WORDS:
        return None
    with_images = trafilatura.extract(html, url=url or None, include_images=True, **_OPTIONS)
    if with_images:
        _with_images(main, lxml.html.fromstring(with_images))
    return lxml.html.tostring(main, encoding="unicode")


def select(html: str, url: str, only_main: bool) -> tuple[str, bool]:
    """(HTML to render, whether it is the main content) with links absolute."""
    doc = _page(html, url)
    if doc is None:
        return html, False
    if only_main:
        main = main_html(doc, url)
        if main is not None:
            return main, True
        doc = _page(html, url)  # the whole page, as it was before the clean-ups
    body = doc.find("body")
    return lxml.html.tostring(body if body is not None else doc, encoding="unicode"), False


def to_markdown(html: str, url: str, only_main: bool = True) -> tuple[str, bool]:
    chosen, is_main = select(html, url, only_main)
    return _convert(chosen), is_main


def to_text(html: str, url: str, only_main: bool = True) -> tuple[str, bool]:
    chosen, is_main = select(html, url, only_main)
    text = lxml.html.fromstring(chosen).text_content() if chosen.strip() else ""
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line) + "\n", is_main


def to_links(html: str, url: str, only_main: bool = True) -> tuple[list[dict[str, str]], bool]:
    chosen, is_main = select(html, url, only_main)
    if not chosen.strip():
        return [], is_main
    seen, links = set(), []
    for a in lxml.html.fromstring(chosen).iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("javascript:", "#")) or href in seen:
            continue
        seen.add(href)
        links.append({"text": " ".join(a.text_content().split()), "url": href})
    return links, is_main
