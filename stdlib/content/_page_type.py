"""What kind of page a page is (`page_type`: article, forum, product, collection, listing,
documentation, service or other), from its structure and markup alone: no site is named.

The features are the page's declared types (schema.org in JSON-LD and microdata, OpenGraph), its
repeated item structures, forms, code, prices, post markup, headings and links; a linear score per
type over them, the weights in _page_type_weights.py (fitted by bench/page_types.py on WCXB's
dev split, cross-validated by domain; docs/reading.md has the figures).
"""

from __future__ import annotations

import bisect
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
_NUL = re.compile("\x00")
_PRICE = re.compile(r"[$€£¥₹]\s?\d|\d\s?(?:€|USD|EUR|GBP)\b")
_LD_TYPE = re.compile(r'"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")')


def _declared(doc: Any, scripts: list[str]) -> Counter[str]:
    """The kinds the page declares: schema.org @type in JSON-LD (its scripts' texts) and
    itemtype, og:type."""
    names: list[str] = []
    for text in scripts:
        if text:
            for found in _LD_TYPE.findall(text[:200_000]):
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


def features(doc: Any, scripts: list[str]) -> dict[str, float]:
    """The page's features (counts, log-scaled, and shares) from the reader's parse of it
    (_parse.parse: comments, scripts, styles and fallbacks gone; `scripts`: the texts of its
    JSON-LD), read before the reading changes it; the page is left as it is."""
    found: dict[str, float] = {}
    for kind, count in _declared(doc, scripts).items():
        found[f"declares {kind}"] = min(count, 3)
    names: list[str] = []
    attrs: list[str] = []
    best_run = 0
    for node in doc.iter():
        tag = node.tag
        names.append(tag if isinstance(tag, str) else "")
        cls, ident = node.get("class"), node.get("id")
        if cls or ident:
            attrs.append(f"{cls or ''} {ident or ''}")
        if len(node) >= 3:  # repeated item structure: siblings of one tag and class
            alike = Counter([(c.tag, c.get("class")) for c in node if isinstance(c.tag, str)])
            best_run = max(best_run, max(alike.values(), default=0))
    tags = Counter(names)
    marks = _marks(attrs)
    props = Counter((p or "").lower() for p in doc.xpath("//@itemprop"))
    found["itemprop offer"] = math.log1p(props["price"] + props["offers"] + props["sku"])
    found["itemprop post"] = math.log1p(props["author"] + props["datepublished"] + props["text"])
    found["paged"] = min(len(doc.xpath("//*[@rel='next' or @rel='prev']")), 3)
    body = doc.find("body")
    text = _text(body) if body is not None else ""
    words = len(text.split())
    link_words = sum(len("".join(a.itertext()).split()) for a in doc.iter("a"))
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


def _marks(attrs: list[str]) -> Counter[str]:
    """How many elements' class and id words (one string an element) start with each mark's
    hint: each distinct string read once (a page's items repeat theirs), in one pass of the
    pattern over them all, joined (a pass a string was a third of page_type's time), each hit
    found its string by where it lies."""
    distinct = Counter(attrs)
    times = list(distinct.values())
    joined = "\x00".join(distinct).lower()  # lowered once joined: a NUL is no letter
    ends = [found.start() for found in _NUL.finditer(joined)]
    hits = {(bisect.bisect(ends, hit.start()), hit.lastgroup) for hit in _MARK.finditer(joined)}
    marks: Counter[str] = Counter()
    for index, mark in hits:
        if mark:
            marks[mark] += times[index]
    return marks


def _text(element: Any) -> str:
    """An element's text, as lxml.html's text_content reads it (its string value)."""
    return str(element.xpath("string()"))


def scores(found: dict[str, float]) -> dict[str, float]:
    """Each type's linear score over the standardised features (a feature not found is 0)."""
    scaled = [(found.get(n, 0.0) - m) / sd for n, m, sd in zip(FEATURES, MEANS, SDS, strict=True)]
    return {
        kind: BIAS[kind] + sum(w * x for w, x in zip(WEIGHTS[kind], scaled, strict=True))
        for kind in TYPES
    }


def page_type(html: str) -> str:
    """The kind of page the HTML is; "other" when it holds almost no text or cannot be read."""
    from ._parse import parse  # lxml: not for `dsl validate`

    scripts: list[str] = []
    doc = parse(html, scripts)
    return OTHER if doc is None else page_type_of(doc, scripts)


def page_type_of(doc: Any, scripts: list[str]) -> str:
    """The kind of page a page is, from the reader's parse of it (`features`), before the
    reading changes it."""
    found = features(doc, scripts)
    if found["words"] < math.log1p(FEW_WORDS):
        return OTHER
    ranked = scores(found)
    return max(ranked, key=lambda kind: ranked[kind])
