"""What kind of page a page is (`page_type`: article, forum, product, collection, listing,
documentation, service or other), from its structure and markup alone: no site is named.

The features are the page's declared types (schema.org in JSON-LD and microdata, OpenGraph), its
repeated item structures, forms, code, prices, post markup, headings and links; a linear score per
type over them, the weights in _page_type_weights.py (fitted by bench/page_types.py on WCXB's
dev split, cross-validated by domain; docs/reading.md has the figures).
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from typing import Any

from ._page_type_weights import BIAS, FEATURES, MEANS, SDS, WEIGHTS

TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")
OTHER = "other"
PAGE_TYPES = (*TYPES, OTHER)  # what `pageType` answers
FEW_WORDS = 20  # a page with fewer words of text is no kind of content page: other

# schema.org and OpenGraph types, by the kind of page they declare
DECLARED = {
    "article": {"article", "newsarticle", "blogposting", "report", "scholarlyarticle", "recipe"},
    "forum": {"discussionforumposting", "qapage", "question", "answer", "socialmediaposting"},
    "product": {"product", "offer", "aggregateoffer", "productgroup", "individualproduct"},
    "collection": {"collectionpage", "offercatalog"},
    "listing": {"itemlist", "searchresultspage", "listitem"},
    "documentation": {"techarticle", "apireference", "softwaresourcecode", "howto"},
    "service": {"service", "localbusiness", "professionalservice", "faqpage", "organization"},
}
# OpenGraph's own types (a site's own words are "other")
OPENGRAPH = {"article", "product", "website", "profile", "blog", "book", "video", "music", "place"}
# words of class and id attributes, by what they usually mark
MARKS = {
    "post": ("post", "thread", "topic", "reply", "replies", "answer", "message", "forum"),
    "comment": ("comment",),
    "shop": ("product", "price", "cart", "basket", "sku", "variant", "stock", "checkout"),
    "docs": ("docs", "documentation", "toc", "api", "highlight", "sidebar"),
    "tile": ("card", "tile", "grid", "item", "teaser", "result", "listing", "entry"),
    "paging": ("pagination", "pager", "filter", "facet", "sort"),
    "byline": ("author", "byline", "date", "published", "meta"),
    "hero": ("hero", "cta", "feature", "testimonial", "pricing", "service", "banner"),
}
# a word of a class or id starting with a mark's hint: one pass of one pattern per element
_MARK = re.compile(
    "(?<![a-z])(?:" + "|".join(f"(?P<{m}>{'|'.join(h)})" for m, h in MARKS.items()) + ")"
)
_PRICE = re.compile(r"[$€£¥₹]\s?\d|\d\s?(?:€|USD|EUR|GBP)\b")
_LD_TYPE = re.compile(r'"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")')


def _declared(doc: Any) -> Counter[str]:
    """The kinds the page declares: schema.org @type in JSON-LD and itemtype, og:type."""
    names: list[str] = []
    for script in doc.iter("script"):
        if (script.get("type") or "").lower() == "application/ld+json" and script.text:
            for found in _LD_TYPE.findall(script.text[:200_000]):
                try:
                    value = json.loads(found)
                except ValueError:
                    continue
                names += value if isinstance(value, list) else [value]
    for node in doc.xpath("//*[@itemtype]"):
        names.append((node.get("itemtype") or "").rstrip("/").rsplit("/", 1)[-1])
    for meta in doc.xpath("//meta[@property='og:type']"):  # "article", "product:group", ...
        said = (meta.get("content") or "").strip().lower().removeprefix("og:").split(":")[0]
        names.append(f"og:{said}" if said in OPENGRAPH else "og:other")
    kinds: Counter[str] = Counter()
    for name in names:
        lowered = str(name).lower()
        for kind, declared in DECLARED.items():
            if lowered in declared:
                kinds[kind] += 1
        if lowered.startswith("og:"):
            kinds[lowered] += 1
    return kinds


def declares_article(doc: Any) -> bool:
    """Whether the parsed page's own markup (og:type, microdata's itemtype) says it is an
    article; JSON-LD is not read here (the reader's parse has dropped its scripts)."""
    for meta in doc.xpath("//meta[@property='og:type']"):
        if (meta.get("content") or "").strip().lower().split(":")[0] == "article":
            return True
    return any(
        (node.get("itemtype") or "").rstrip("/").rsplit("/", 1)[-1].lower() in DECLARED["article"]
        for node in doc.xpath("//*[@itemtype]")
    )


def features(doc: Any) -> dict[str, float]:
    """The page's features (counts, log-scaled, and shares) from an lxml document."""
    found: dict[str, float] = {}
    for kind, count in _declared(doc).items():
        found[f"declares {kind}"] = min(count, 3)
    tags: Counter[str] = Counter()
    marks: Counter[str] = Counter()
    best_run = 0
    for node in doc.iter():
        tag = node.tag if isinstance(node.tag, str) else ""
        tags[tag] += 1
        attrs = f"{node.get('class') or ''} {node.get('id') or ''}".lower()
        if attrs.strip():
            marks.update({hit.lastgroup or "" for hit in _MARK.finditer(attrs)} - {""})
        if len(node) >= 3:  # repeated item structure: siblings of one tag and class
            alike = Counter((c.tag, c.get("class")) for c in node if isinstance(c.tag, str))
            best_run = max(best_run, alike.most_common(1)[0][1] if alike else 0)
    props = Counter((p or "").lower() for p in doc.xpath("//@itemprop"))
    found["itemprop offer"] = math.log1p(props["price"] + props["offers"] + props["sku"])
    found["itemprop post"] = math.log1p(props["author"] + props["datepublished"] + props["text"])
    found["paged"] = min(len(doc.xpath("//*[@rel='next' or @rel='prev']")), 3)
    for script in doc.xpath("//script|//style|//noscript|//template"):
        _drop_tree(script)
    body = doc.find("body")
    text = _text(body) if body is not None else ""
    words = len(text.split())
    link_words = sum(len(_text(a).split()) for a in doc.iter("a"))
    found["words"] = math.log1p(words)
    found["link share"] = link_words / words if words else 0.0
    found["prices"] = math.log1p(len(_PRICE.findall(text)))
    found["repeated items"] = math.log1p(best_run)
    for tag in ("p", "h1", "h2", "h3", "h4", "pre", "code", "form", "input", "article", "time",
                "li", "table", "img", "button", "nav", "blockquote", "select", "dl", "section",
                "aside", "label"):  # fmt: skip
        found[f"<{tag}>"] = math.log1p(tags[tag])
    for mark in MARKS:
        found[f"marks {mark}"] = math.log1p(marks[mark])
    paragraphs = tags["p"] or 1
    found["words per paragraph"] = math.log1p(words / paragraphs)
    return found


def _text(element: Any) -> str:
    """An element's text, as lxml.html's text_content reads it (its string value)."""
    return str(element.xpath("string()"))


def _drop_tree(element: Any) -> None:
    """An element and its children removed, its tail kept (lxml.html's drop_tree, for any
    element: page_type parses without lxml.html's element classes, a third of its time)."""
    parent, tail = element.getparent(), element.tail
    if tail:
        previous = element.getprevious()
        if previous is None:
            parent.text = (parent.text or "") + tail
        else:
            previous.tail = (previous.tail or "") + tail
    parent.remove(element)


def scores(found: dict[str, float]) -> dict[str, float]:
    """Each type's linear score over the standardised features (a feature not found is 0)."""
    scaled = [(found.get(n, 0.0) - m) / sd for n, m, sd in zip(FEATURES, MEANS, SDS, strict=True)]
    return {
        kind: BIAS[kind] + sum(w * x for w, x in zip(WEIGHTS[kind], scaled, strict=True))
        for kind in TYPES
    }


@functools.cache
def _parser() -> Any:
    """lxml.html's parser options without its element classes (a third of page_type's time);
    lxml imported here, not for `dsl validate`."""
    from lxml import etree

    return etree.HTMLParser()


def page_type(html: str) -> str:
    """The kind of page the HTML is; "other" when it holds almost no text or cannot be read."""
    from lxml import etree

    if not html.strip():
        return OTHER
    try:
        doc = etree.fromstring(html, _parser())  # as lxml.html.document_fromstring parses it
    except (ValueError, etree.ParserError):
        return OTHER
    if doc is None:
        return OTHER
    found = features(doc)
    if found["words"] < math.log1p(FEW_WORDS):
        return OTHER
    ranked = scores(found)
    return max(ranked, key=lambda kind: ranked[kind])
