"""Page clean-up before main-content selection: what a page shows in layers, one at a time.

- Elements hidden by their own markup (the `hidden` attribute, an inline `display: none` or
  `visibility: hidden`): a copy kept for another layout, a template; never one holding most of
  the page's text (a body a script reveals); with `panels`, never the panels a reader opens (a
  tab's, an accordion's answers: content hidden until chosen).
- The panels a reader opens one at a time, read whole: when the answer holds one panel of a
  group (a tab's, an accordion's), it holds the others (run after the vote, on its blocks).
- Dialogs a button opens over the page (a policy, a sign-in, a cart), never one holding the
  page's h1.
- Text only a screen reader speaks (classed `sr-only`, `visually-hidden`, ...): "Regular
  price", "Opens in a new window" beside what the page shows; never most of the page's text.
- Controls: a button's few words ("Quick Shop", "Add to cart", "Compare") and a drop-down's
  choices (a sort order, a filter); never a longer button (an accordion's question).

All but read_panels_whole work on a parsed page (lxml) in place and only remove nodes; names
read as _boilerplate's.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, cast

from lxml import etree

from ._blocks import Block
from ._boilerplate import DOMINANT, words
from ._groups import chrome
from ._names import may_be_named, name_parts, parts_of

_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b", re.I)


def _hidden(element: Any) -> bool:
    return element.get("hidden") is not None or bool(_HIDDEN_STYLE.search(element.get("style", "")))


# What may be hidden by its own markup (as body.iter would find them, in document order)
_MARKED = etree.XPath("descendant-or-self::*[@hidden or @style]")


def drop_hidden(body: Any, panels: bool = False, answers: bool = False) -> None:
    hidden = [
        element
        for element in cast("list[Any]", _MARKED(body))
        if _hidden(element) and not (panels and _panel(element, answers))
    ]
    _drop_minor(body, hidden)


def _drop_minor(body: Any, found: list[Any]) -> None:
    """Each of `found` still in the page dropped, never the body nor one holding DOMINANT of the
    page's words (a page that is all of it)."""
    if not found:
        return
    limit = DOMINANT * words(body)
    for element in found:
        if element.getparent() is not None and element is not body and words(element) < limit:
            element.drop_tree()


# Whole words of class and id names of the panels a page shows one at a time (tabs, an
# accordion's answers): hidden until their tab or question is chosen, and content.
PANEL_WORDS = frozenset({"accordion", "collapse", "collapsible", "tabpanel", "pane"})
# ... and of a question's answer a reader opens (a FAQ's "faq__answer").
ANSWER_WORDS = frozenset({"answer", "answers", "faq", "faqs"})


# What each word of PANEL_WORDS ("tab" with it) and ANSWER_WORDS holds, lowercased.
_PANEL_HINTS = ("accordion", "collaps", "pane", "tab")
_ANSWER_HINTS = (*_PANEL_HINTS, "answer", "faq")


def _panel(element: Any, answers: bool = False) -> bool:
    """Whether a hidden element is a panel a reader opens (a tab's, an accordion's; with
    `answers`, a FAQ's answer)."""
    if element.get("role") == "tabpanel":
        return True
    names = f"{element.get('class', '')} {element.get('id', '')}".lower()
    if not any(hint in names for hint in (_ANSWER_HINTS if answers else _PANEL_HINTS)):
        return False  # the quick test: no name holds a word of either set
    parts = set(name_parts(element))
    if answers and parts & ANSWER_WORDS:
        return True
    return _named_panel(parts)


def _named_panel(parts: set[str]) -> bool:
    return bool(parts & PANEL_WORDS) or ("tab" in parts and bool(parts & {"content", "panel"}))


def drop_hidden_but_panels(body: Any) -> None:
    """Hidden elements go, but not the panels a reader opens (tabs, an accordion's answers)."""
    drop_hidden(body, panels=True)


def drop_hidden_but_answers(body: Any) -> None:
    """drop_hidden_but_panels that keeps a FAQ's hidden answers too (named as answers)."""
    drop_hidden(body, panels=True, answers=True)


# Words of a panel's class names that say its state (shown, chosen, folded), not what it is:
# two panels of one group differ by them alone ("tab-pane active", "tab-pane").
STATE_WORDS = frozenset(
    {
        "active",
        "show",
        "shown",
        "showing",
        "in",
        "open",
        "opened",
        "hidden",
        "collapsed",
        "current",
        "selected",
        "is",
        "fade",
        "visible",
        "expanded",
        "closed",
        "js",
        "on",
        "first",
        "last",
        "default",
    }
)


def _holders(page_blocks: list[Block]) -> list[Any | None]:
    """The panel a reader opens holding each block (its element or the nearest such ancestor),
    None for a block in no panel or in the chrome (a menu's collapsible lists). Each element is
    asked once: the answer is shared by the blocks below it."""
    found: dict[Any, Any | None] = {}
    holders = []
    for block in page_blocks:
        path, node = [], block.element
        while node is not None and node not in found and not _panel(node):
            path.append(node)
            node = node.getparent()
        panel = None if node is None else found.get(node, node)
        found.update(dict.fromkeys(path, panel))
        if panel is not None:
            found[panel] = panel
        holders.append(None if panel is None or chrome(block.element) else panel)
    return holders


def _panel_kind(panel: Any) -> tuple[str, frozenset[str] | str] | None:
    """What makes panels one group's: their tag, and their role tabpanel or else their class
    names but for their state; None for a panel only its id names (a layout's "ContentPane3"
    beside its "ContentPane5": no kind a page repeats for its tabs)."""
    if panel.get("role") == "tabpanel":
        return panel.tag, "tabpanel"
    words = set(parts_of(panel.get("class", "")))
    return (panel.tag, frozenset(words - STATE_WORDS)) if _named_panel(words) else None


def _group_of(panel: Any, others: set[Any]) -> Any | None:
    """The nearest element holding the panel and another of its kind: their group's."""
    around = {a for other in others if other is not panel for a in other.iterancestors()}
    return next((a for a in panel.iterancestors() if a in around), None)


def read_panels_whole(page_blocks: list[Block], kept: list[bool]) -> None:
    """The panels a reader opens one at a time (a tab's, an accordion's answers; their hidden
    ones spared by the clean-ups) read whole: when a kept block lies in one panel of a group,
    the blocks of the group's other panels are kept too (the other languages' steps, the other
    questions' answers). A group: panels of one kind (role tabpanel, or the same class names
    but for their state, naming a panel) under the nearest element holding two of them; never
    the chrome's (a menu's collapsible lists)."""
    answer = [b for b, keep in zip(page_blocks, kept, strict=True) if keep]
    if all(holder is None for holder in _holders(answer)):
        return  # the answer holds no panel (most pages): the others' blocks are not looked at
    holders = _holders(page_blocks)
    kinds = {h: kind for h in holders if h is not None and (kind := _panel_kind(h)) is not None}
    of_kind: dict[Any, set[Any]] = defaultdict(set)
    for holder, kind in kinds.items():
        of_kind[kind].add(holder)
    groups: set[tuple[Any, Any]] = set()
    for holder in {h for h, keep in zip(holders, kept, strict=True) if keep and h in kinds}:
        group = _group_of(holder, of_kind[kinds[holder]])
        if group is not None:
            groups.add((group, kinds[holder]))
    inside = {h: any((a, kind) in groups for a in h.iterancestors()) for h, kind in kinds.items()}
    for index, holder in enumerate(holders):
        if inside.get(holder, False):
            kept[index] = True


DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
_DIALOG_LIKE = etree.XPath("descendant::*[self::dialog or @role or @aria-modal]")


def drop_dialogs(body: Any) -> None:
    """Dialogs (a `<dialog>`, role dialog or alertdialog, aria-modal): a policy, a sign-in, a
    cart a button opens over the page; never one holding the page's h1 (a page shown in one),
    whatever its words (a refund policy's dialog outweighs a product's page)."""
    found = [
        element
        for element in cast("list[Any]", _DIALOG_LIKE(body))
        if (
            element.tag == "dialog"
            or element.get("role") in DIALOG_ROLES
            or element.get("aria-modal") == "true"
        )
    ]
    for element in found:
        if element.getparent() is not None and not any(True for _ in element.iter("h1")):
            element.drop_tree()


# Whole words of class and id names of a layer a button opens over the page.
MODAL_WORDS = frozenset({"modal", "popup", "lightbox"})
LAYERS = frozenset({"div", "section", "aside", "dialog", "form"})  # what a layer is built of
_ANY_MODAL = re.compile("|".join(sorted(MODAL_WORDS)), re.IGNORECASE)


def drop_named_modals(body: Any) -> None:
    """Layers named as modals or pop-ups in their class or id (whole words, any case): a
    policy, a newsletter sign-up, a cart; only containers (a `<div>`, a `<section>`: not a link
    or a span, a word's gloss inside the text), never one holding every h1 of the page (a page
    shown in one), whatever its words (as the dialogs)."""
    if not may_be_named(body, MODAL_WORDS):
        return
    found = [
        element
        for element in body.iter(etree.Element)
        if element is not body
        and element.tag in LAYERS
        and _ANY_MODAL.search(f"{element.get('class', '')} {element.get('id', '')}")
        and set(name_parts(element)) & MODAL_WORDS
    ]
    if not found:
        return
    titles = sum(1 for _ in body.iter("h1"))
    for element in found:
        inside = sum(1 for _ in element.iter("h1"))
        if element.getparent() is not None and (not inside or inside < titles):
            element.drop_tree()


# Whole class names of text shown only to screen readers (Bootstrap's, WordPress's, Shopify's).
SCREEN_READER_CLASSES = frozenset(
    {
        "sr-only",
        "visually-hidden",
        "visuallyhidden",
        "screen-reader-text",
        "screen-reader-only",
        "u-visually-hidden",
        "element-invisible",
    }
)
_ANY_SCREEN_READER = re.compile(
    "|".join(("sr-only", "visually-?hidden", "screen-reader", "element-invisible")), re.I
)


def drop_screen_reader_text(body: Any) -> None:
    """Text only a screen reader speaks (a class of SCREEN_READER_CLASSES: "Regular price",
    "Opens in a new window", a skip link), never an element holding most of the page's text."""
    if not may_be_named(body, SCREEN_READER_CLASSES):
        return
    found = [
        element
        for element in body.iter(etree.Element)
        if element is not body
        and _ANY_SCREEN_READER.search(element.get("class", ""))
        and set(element.get("class", "").lower().split()) & SCREEN_READER_CLASSES
    ]
    _drop_minor(body, found)


CONTROL_WORDS = 4  # a button of more words is a question or a title a reader opens, not a control


def drop_controls(body: Any) -> None:
    """Buttons of at most CONTROL_WORDS words and drop-downs (`<select>`): what a reader
    clicks or chooses, not what the page says; never one holding most of the page's text."""
    found = [
        element
        for element in body.iter("button", "select")
        if element.tag == "select" or words(element) <= CONTROL_WORDS
    ]
    _drop_minor(body, found)


CLEANUPS = {
    "hidden": drop_hidden,
    "controls": drop_controls,
    "screen_reader": drop_screen_reader_text,
    "modals": drop_named_modals,
    "hidden_panels": drop_hidden_but_panels,
    "hidden_answers": drop_hidden_but_answers,
    "dialogs": drop_dialogs,
}
