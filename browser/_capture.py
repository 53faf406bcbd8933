"""What a page shows, captured: its HTML as the reader sees it (open shadow roots composed in
place, slots filled with what is assigned to them), and its picture (`screenshot`). Reads the
page; never changes it.

Under load, Chromium's `Page.captureScreenshot` sometimes answers a protocol error ("Unable to
capture screenshot": the compositor gave no frame in time) for a page it paints a moment later;
the screenshot action failed on that alone in CI (a fresh session's tab on a loaded machine).
`screenshot` asks again twice after a short pause; any other failure, and a third refusal, go to
the caller as they are.
"""

from __future__ import annotations

from typing import Any

import anyio

from taskplate.contract import lazy_dataclass, valid_text

# Native serialisation when the page has no shadow root (the common, fast case); otherwise a
# composed copy: each host's shadow tree replaces its children, slots their assigned nodes.
_CAPTURE = """(root) => {
  const start = root || document.documentElement;
  if (!start) return '';
  const hosts = (node) => {
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.currentNode; el; el = walker.nextNode()) if (el.shadowRoot) return true;
    return false;
  };
  const flat = (node) => {
    const copy = node.cloneNode(false);
    if (node.nodeType !== Node.ELEMENT_NODE) return copy;
    const children = (node.shadowRoot || node).childNodes;
    for (const child of children) {
      if (child instanceof HTMLSlotElement) {
        for (const assigned of child.assignedNodes({flatten: true})) copy.appendChild(flat(assigned));
      } else {
        copy.appendChild(flat(child));
      }
    }
    return copy;
  };
  const html = hosts(start) ? flat(start).outerHTML : start.outerHTML;
  if (root) return html;
  const type = document.doctype;
  return (type ? '<!DOCTYPE ' + type.name + '>' : '') + html;
}"""
# The words a reader sees (text outside scripts and styles), counted in the page: what tells a
# page that still holds its article from one whose script put a short notice in its place.
_WORDS = """() => {
  const body = document.body;
  if (!body) return 0;
  const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT, {acceptNode: (n) =>
    /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE)$/.test(n.parentNode.nodeName)
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  let words = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const found = n.data.match(/[\\p{L}\\p{N}_]+/gu);
    if (found) words += found.length;
  }
  return words;
}"""
# The name of the DevTools binding a loading top document sends itself through (Tab.keep_loads).
LOADED_BINDING = "__taskplateLoaded"
# The document's own state, read in the same round trip as its HTML: Chromium's error page is
# known by its chrome-error:// document, never by its wording; timeOrigin names the document.
_STATE_FIELDS = """title: document.title,
  url: location.href,
  errorPage: location.href.startsWith('chrome-error://'),
  document: performance.timeOrigin,"""
DOCUMENT = f"""() => ({{
  html: ({_CAPTURE})(null),
  {_STATE_FIELDS}
  words: ({_WORDS})(),
}})"""
# Content "taken away" after loading: the document now shows less than this share of the words
# it had when it loaded (get_page_content then compares their main contents by the same share).
SHRUNK = 0.25
# The document as it is now, read at one moment: the watcher's copy at load while nothing changed
# since (the same text, serialised once, at load); else read now, with the copy at load beside it
# when the page shows less than SHRUNK of the words it had then, for the reader to compare.
_NOW = f"""() => {{
  const w = window.__taskplateWatch, kept = w && w.atLoad;
  const same = kept && kept.url === location.href;
  if (same && !w.dirty) return kept;
  const now = ({DOCUMENT})();
  if (same && now.words < {SHRUNK} * kept.words) now.atLoad = kept;
  return now;
}}"""
# What a page shows now without its HTML: its title, where it is, whether it is the error page.
_STATE = f"""() => ({{
  html: '',
  {_STATE_FIELDS}
  words: 0,
}})"""


@lazy_dataclass(frozen=True)
class Capture:
    """One document as read at one moment: its HTML and title, where it is, whether it is the
    browser's error page, which document it is (its time origin) and how many words it shows."""

    html: str
    title: str
    url: str
    error_page: bool
    document: float
    words: int

    @classmethod
    def from_json(cls, read: dict[str, Any]) -> Capture:
        # valid Unicode before any parser or encoder meets it (a script may write lone surrogates)
        return cls(
            valid_text(str(read["html"])),
            valid_text(str(read["title"])),
            valid_text(str(read["url"])),
            bool(read["errorPage"]),
            float(read["document"]),
            int(read["words"]),
        )


async def capture_page(page: Any) -> tuple[Capture, Capture | None]:
    """The whole document (HTML, title, state) read at one moment in one round trip, and as it
    was when it loaded when its script has since taken most of its words away (else None)."""
    read = await page.evaluate(_NOW)
    at_load = read.get("atLoad")
    return Capture.from_json(read), None if at_load is None else Capture.from_json(at_load)


async def page_state(page: Any) -> Capture:
    """The page's title, URL and state in one small round trip; its HTML and words left out."""
    return Capture.from_json(await page.evaluate(_STATE))


async def element_html(element: Any) -> str:
    """One element's outer HTML, open shadow roots included."""
    return valid_text(str(await element.evaluate(_CAPTURE)))


# The protocol call Playwright's page and element screenshots make; its errors name it.
_PAINT = "Protocol error (Page.captureScreenshot)"
# Pauses before the second and the third try: well under a step's default timeout.
PAUSES_S = (0.2, 0.8)


async def screenshot(target: Any, **options: Any) -> bytes:
    """`target.screenshot(**options)` (a page, a locator or an element), asked again after
    Chromium's passing refusal to paint."""
    for pause in PAUSES_S:
        try:
            return bytes(await target.screenshot(**options))
        except Exception as exc:
            if _PAINT not in str(exc):
                raise
        await anyio.sleep(pause)
    return bytes(await target.screenshot(**options))
