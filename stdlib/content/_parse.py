"""The one parse of a page that its reading and its `pageType` share: lxml.html's, without
comments and processing instructions, scripts and styles dropped, a script-built page's
`<noscript>` view read in their place, a React page's streamed parts put in their places.
"""

from __future__ import annotations

import re
from typing import Any, cast

import lxml.html

# As trafilatura's own loader parses: comments and processing instructions never reach a voter.
# React writes `<!-- -->` between the text nodes of a paragraph; kept, they cut its text in
# pieces that trafilatura's voters then drop together (bench/content.py, React-built pages).
_PARSER = lxml.html.HTMLParser(remove_comments=True, remove_pis=True)
# ... and for a React page streamed from its server, its comments kept until its parts are placed
_STREAMED_PARSER = lxml.html.HTMLParser(remove_comments=False, remove_pis=True)
# Every element an lxml.html element, its class found in C: lxml.html's own lookup (a Python call
# each time an element is reached, for the form classes no reader here uses) was 3% of a page's
# reading; trafilatura and readability work on copies of these parsers' trees.
_LOOKUP = lxml.etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement,
    comment=lxml.html.HtmlComment,
    pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity,
)
_PARSER.set_element_class_lookup(_LOOKUP)
_STREAMED_PARSER.set_element_class_lookup(_LOOKUP)

_WORDS = re.compile(r"\w+")

# React's streamed server rendering sends a page's late parts after the rest, each in a hidden
# <div id="S:n"> that an inline script moves into the place of its <template id="B:n"> (or
# "P:n"); read without script (engine http, `fetch`) they stay hidden, and the page reads as
# its banner. They are put in place as the script puts them, a part n in place n (as each of
# the 274 calls on the 37 such WCXB dev pages pairs them).
_STREAMED = lxml.etree.XPath("//div[@hidden][starts-with(@id, 'S:')]")


def place_streamed(doc: Any) -> None:
    """A React page's streamed parts (hidden `<div id="S:n">`s) put in their templates' places."""
    segments = cast("list[Any]", _STREAMED(doc))
    if not segments:
        return
    holders = {t.get("id"): t for t in doc.iter("template") if t.get("id", "")[1:2] == ":"}
    for segment in segments:
        number = segment.get("id")[2:]
        holder = holders.get(f"B:{number}", holders.get(f"P:{number}"))
        if (
            holder is None
            or holder.getparent() is None  # gone with what showed before another part came
            or segment.getparent() is None
            or segment in holder.iterancestors()
        ):
            continue
        _detach(segment)
        _drop_fallback(holder)
        holder.addprevious(segment)
        holder.drop_tree()
        segment.drop_tag()


def _detach(element: Any) -> None:
    """The element out of the tree, the text after it left where it was."""
    before, parent, tail = element.getprevious(), element.getparent(), element.tail
    element.tail = None
    parent.remove(element)
    if tail and before is not None:
        before.tail = (before.tail or "") + tail
    elif tail:
        parent.text = (parent.text or "") + tail


def _drop_fallback(holder: Any) -> None:
    """What a boundary shows until its part comes (a spinner, "Loading..."): the nodes after its
    template up to the `<!--/$-->` that closes it (boundaries inside it counted, as React's
    script counts them); nothing without one (a parse without comments), nor for a part's
    placeholder ("P:n"), which has none."""
    if not holder.get("id", "").startswith("B:"):
        return
    fallback, depth = [], 0
    for node in holder.itersiblings():
        if node.tag is lxml.etree.Comment:
            if node.text == "/$" and not depth:
                break
            depth += {"/$": -1, "$": 1, "$?": 1, "$!": 1}.get(node.text or "", 0)
        fallback.append(node)
    else:
        return
    for node in fallback:
        node.drop_tree()


def parse(html: str, structured: list[str] | None = None) -> Any | None:
    """The parsed page, without comments and processing instructions, scripts and styles
    dropped (the texts of its JSON-LD scripts added to `structured`); None when there is
    nothing to parse. The one parse of a page its reading and its `pageType` share."""
    if not html.strip():
        return None
    streamed = '"S:' in html  # a React page's streamed parts (place_streamed), cheaply ruled out
    try:
        doc = lxml.html.document_fromstring(html, parser=_STREAMED_PARSER if streamed else _PARSER)
    except (ValueError, lxml.etree.ParserError):
        return None
    if streamed:  # its comments mark what shows until each part comes; gone once it is placed
        place_streamed(doc)
        for comment in cast("list[Any]", doc.xpath("//comment()")):
            if comment.getparent() is not None:  # not one before or after the page's <html>
                comment.drop_tree()
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
