"""The content engine: a page's HTML to what agents read (main content chosen by agreement,
Markdown, text, links) and whether it needs script; pure functions of HTML, run off the event loop.

Its public names load on first use: lxml and the voters come with them, never with `dsl validate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._conversion import conversion_workers, convert, warm_workers
    from ._markdown import read_typed, to_html, to_links, to_markdown, to_text
    from ._needs_script import needs_script
    from ._page_type import PAGE_TYPES, page_type

__getattr__ = lazy_names(__name__, globals())

__all__ = [
    "PAGE_TYPES",
    "conversion_workers",
    "convert",
    "needs_script",
    "page_type",
    "read_typed",
    "to_html",
    "to_links",
    "to_markdown",
    "to_text",
    "warm_workers",
]
