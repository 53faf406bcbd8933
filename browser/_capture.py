"""The page's HTML as the reader sees it: open shadow roots composed in place (slots filled with
what is assigned to them). Reads the page; never changes it.
"""

from __future__ import annotations

from typing import Any

from taskplate.dsl import valid_text

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
_WITH_TITLE = f"(root) => [({_CAPTURE})(root), document.title]"


async def page_html(page: Any) -> str:
    """The whole document's HTML, open shadow roots included."""
    return str(await page.evaluate(_CAPTURE, None))


async def page_html_and_title(page: Any) -> tuple[str, str]:
    """The whole document's HTML and its title, read at the same moment in one round trip."""
    html, title = await page.evaluate(_WITH_TITLE, None)
    # valid Unicode before any parser or encoder meets it (a script may write lone surrogates)
    return valid_text(str(html)), valid_text(str(title))


async def element_html(element: Any) -> str:
    """One element's outer HTML, open shadow roots included."""
    return valid_text(str(await element.evaluate(_CAPTURE)))
