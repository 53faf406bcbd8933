"""CSS selectors as templates hold them: parsed as a browser would (`_css`, cssselect2's parser,
for the `css-selector` rule) and found in, or replaced in, a template's source text (`_selector_spans`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._css import SELECTOR_KEY, selector_problem, selectors_in
    from ._selector_spans import SelectorSpan, selector_spans, with_selectors

# Public names: the TYPE_CHECKING imports above, loaded on first use (a validate without
# selectors never loads cssselect2).
__getattr__ = lazy_names(__name__, globals())

__all__ = [
    "SELECTOR_KEY",
    "SelectorSpan",
    "selector_problem",
    "selector_spans",
    "selectors_in",
    "with_selectors",
]
