"""Whether a page's HTML holds its content or it needs script to show it (`needs_script`): the
signal `read_page`'s engine auto goes by and `fetch` answers with.
"""

from __future__ import annotations

import re
from typing import Any

from ._parse import place_streamed

# A page whose HTML holds fewer words than this, and scripts, is read as one that needs script.
FEW_WORDS = 20
APP_ROOTS = ("root", "app", "__next", "__nuxt", "svelte", "main-app")
# HTML this large whose text is under this share of it, with scripts: markup waiting for script.
BULKY_HTML, THIN_TEXT = 50_000, 0.02
_ASKS_FOR_SCRIPT = re.compile(r"javascript|enable js|\bjs\b", re.I)


def needs_script(doc: Any, size: int = 0) -> str | None:
    """Why the page seems to need script to show its content (None: its HTML is the page):
    a <noscript> asking for JavaScript, a <meta> refresh, a declarative shadow root, images
    put in by script, an empty app root, <main> or custom element, or little text beside scripts (`size`: of the HTML)."""
    has_scripts = bool(doc.xpath("//script"))
    place_streamed(doc)  # a React page's streamed parts are its HTML's, in their places
    for node in doc.xpath("//body//noscript"):
        if _ASKS_FOR_SCRIPT.search(node.text_content() or ""):
            return "a <noscript> asks for JavaScript"
    if doc.xpath("//meta[translate(@http-equiv, 'REFSH', 'refsh')='refresh']"):
        return "a <meta> refresh sends it on to another page"
    if doc.xpath("//template[@shadowrootmode or @shadowroot]"):
        return "its content is in a shadow root the browser composes"
    if has_scripts and doc.xpath(
        "//img[@*[starts-with(name(), 'data-') and contains(name(), 'src')]]"
    ):
        return "its images are put in by script as they come into view"
    for node in doc.xpath("//script|//style|//template|//noscript"):
        node.drop_tree()
    body = doc.find("body")
    text = body.text_content() if body is not None else ""
    words = len(text.split())
    for name in APP_ROOTS:
        for root in doc.xpath(f"//*[@id='{name}']"):
            if not root.text_content().strip() and words < 5 * FEW_WORDS:
                return f'the app root "#{name}" is empty'
    for node in doc.xpath("//main|//article|//*[@role='main']"):
        if has_scripts and not node.text_content().strip():
            return f"the <{node.tag}> element is empty (script fills it)"
    if has_scripts and words < FEW_WORDS:
        return f"the HTML holds {words} words and scripts"
    if has_scripts and words < 5 * FEW_WORDS:
        for node in doc.xpath("//body//*[contains(local-name(), '-')]"):
            if not node.text_content().strip() and not len(node):
                return f"the custom element <{node.tag}> is empty (script fills it)"
    if has_scripts and size > BULKY_HTML and len(text.strip()) < THIN_TEXT * size:
        return f"the HTML is {size // 1000} kB of markup and scripts around {words} words"
    return None
