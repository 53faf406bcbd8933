"""The one parse of a page that its reading and its `pageType` share: lxml.html's, without
comments and processing instructions, scripts and styles dropped, a script-built page's
`<noscript>` view read in their place.
"""

from __future__ import annotations

import re
from typing import Any, cast

import lxml.html

# As trafilatura's own loader parses: comments and processing instructions never reach a voter.
# React writes `<!-- -->` between the text nodes of a paragraph; kept, they cut its text in
# pieces that trafilatura's voters then drop together (bench/content.py, React-built pages).
_PARSER = lxml.html.HTMLParser(remove_comments=True, remove_pis=True)
# Every element an lxml.html element, its class found in C: lxml.html's own lookup (a Python call
# each time an element is reached, for the form classes no reader here uses) was 3% of a page's
# reading; trafilatura and readability work on copies of this parser's trees.
_PARSER.set_element_class_lookup(
    lxml.etree.ElementDefaultClassLookup(
        element=lxml.html.HtmlElement,
        comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction,
        entity=lxml.html.HtmlEntity,
    )
)

_WORDS = re.compile(r"\w+")


def parse(html: str, structured: list[str] | None = None) -> Any | None:
    """The parsed page, without comments and processing instructions, scripts and styles
    dropped (the texts of its JSON-LD scripts added to `structured`); None when there is
    nothing to parse. The one parse of a page its reading and its `pageType` share."""
    if not html.strip():
        return None
    try:
        doc = lxml.html.document_fromstring(html, parser=_PARSER)
    except (ValueError, lxml.etree.ParserError):
        return None
    for node in cast("list[Any]", doc.xpath("//script|//style|//template")):
        if structured is not None and node.get("type") == "application/ld+json":
            structured.append(node.text or "")
        node.drop_tree()
    fallbacks = cast("list[Any]", doc.xpath("//noscript[not(ancestor::noscript)]"))
    if fallbacks:
        # A page whose text is all in its <noscript> (a script-built app's view for readers
        # without script: a forum's thread) is read from it; elsewhere it is another copy.
        inside = sum(len(_WORDS.findall(n.text_content())) for n in fallbacks)
        outside = len(_WORDS.findall(cast("Any", doc).text_content())) - inside
        for node in fallbacks:
            if inside > outside:
                node.drop_tag()
            else:
                node.drop_tree()
    return doc
