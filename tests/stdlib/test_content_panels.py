"""The panels a reader opens one at a time, read whole (`_layers.read_panels_whole`): when the
answer holds one panel of a group (a tab of install steps, an accordion's answer), it holds the
group's others; a page's layout panes, a menu's collapsible lists and a lone panel are no group;
on a product page its tabs (reviews, shipping terms) stay as the vote left them.
"""

from __future__ import annotations

import json
from dataclasses import replace

import lxml.html

from taskplate.stdlib.content._blocks import blocks
from taskplate.stdlib.content._layers import read_panels_whole
from taskplate.stdlib.content._markdown import read_typed, render
from taskplate.stdlib.content._selection import DEFAULT, main_region

STEPS = {
    "Windows": "Download the installer for your version of Windows and run it as an administrator",
    "macOS": "Install Homebrew first, then tap the project's formula and install the command",
    "Linux": "Add the package repository's signing key, then install the package with apt",
}


# How a page hides the tabs not chosen (the voters' extractors leave such panels out).
HIDDEN = " hidden aria-hidden='true'"


def tabs(shown: str = "Windows") -> str:
    """A tab group as a documentation page writes it: the chosen tab's panel shown, the
    others hidden (and spared by the clean-ups, as panels a reader opens)."""
    buttons = "".join(f"<button role='tab'>{name}</button>" for name in STEPS)
    panels = "".join(
        f"<section role='tabpanel' id='tab-{name.lower()}'"
        f"{'' if name == shown else HIDDEN}><p>{text}.</p></section>"
        for name, text in STEPS.items()
    )
    return f"<div class='tab-group'><div role='tablist'>{buttons}</div>{panels}</div>"


def kept_after(html: str, first: str) -> list[str]:
    """The blocks kept when the vote kept the blocks holding `first`, after reading panels
    whole."""
    body = lxml.html.document_fromstring(html).find("body")
    page_blocks = blocks(body)
    kept = [first in " ".join(b.words) for b in page_blocks]
    read_panels_whole(page_blocks, kept)
    return [" ".join(b.words) for b, k in zip(page_blocks, kept, strict=True) if k]


def test_a_tab_groups_other_panels_are_kept_with_the_one_the_answer_holds() -> None:
    kept = kept_after(f"<html><body><main>{tabs()}</main></body></html>", "download")
    assert len(kept) == 3
    assert any("homebrew" in text for text in kept) and any("apt" in text for text in kept)
    assert "macos" not in kept  # the tab's button is no panel


def test_an_accordions_answers_are_one_group_whatever_their_state() -> None:
    """Panels named alike but for their state ("collapse show", "collapse") are one group."""
    items = "".join(
        f"<div class='accordion-item'><h3><button>{q}?</button></h3>"
        f"<div class='accordion-collapse collapse{' show' if i == 0 else ''}'>"
        f"<div class='accordion-body'><p>{a}.</p></div></div></div>"
        for i, (q, a) in enumerate(
            (
                ("How long does a repair take", "Most repairs are done within two working days"),
                ("Do you collect", "We collect and return the machine within the county"),
                ("Is there a warranty", "Every repair carries a ninety day parts warranty"),
            )
        )
    )
    kept = kept_after(f"<html><body><div class='accordion'>{items}</div></body></html>", "most")
    assert len(kept) == 3 and any("ninety" in text for text in kept)


def test_layout_panes_a_menus_collapsible_lists_and_a_lone_panel_are_no_group() -> None:
    html = (
        "<html><body><header><ul class='collapse sub-nav'><li>Shop</li></ul>"
        "<ul class='collapse sub-nav'><li>Help</li></ul></header>"
        "<div class='sidebar-pane'><p>Guides and references of every chapter</p></div>"
        "<div class='main-pane'><p>Start here: create a project with the command</p>"
        "<div class='tab-content'><p>One lone panel of notes</p></div></div></body></html>"
    )
    assert kept_after(html, "start") == ["start here create a project with the command"]
    assert kept_after(html, "shop") == ["shop"]  # the chrome's lists: no group read whole


def test_panels_only_their_ids_name_are_a_layouts_not_a_group() -> None:
    """A portal's columns named by id alone ("ContentPane3", "ContentPane5") share no class a
    page repeats for its tabs: the story in one does not bring the menus of the others."""
    html = (
        "<html><body><div id='ContentPane3'><p>Allergies home, quizzes, slideshows</p></div>"
        "<div id='ContentPane5'><p>Babies who eat peanuts early may avoid allergy</p></div>"
        "<div id='ContentPane22'><p>Find an allergist near you</p></div></body></html>"
    )
    assert kept_after(html, "peanuts") == ["babies who eat peanuts early may avoid allergy"]


def test_a_panel_group_is_read_whole_only_where_the_vote_kept_one_of_its_panels() -> None:
    html = f"<html><body><p>An introduction of the guide</p>{tabs()}</body></html>"
    assert kept_after(html, "introduction") == ["an introduction of the guide"]


def page(kind: str, body: str) -> str:
    data = {"@context": "https://schema.org", "@type": kind, "name": "Core Tools"}
    intro = (
        "<h1>Install the command line tools</h1><p>The tools let you build and test your "
        "project on your own computer before you deploy it, and they work the same way on "
        "every system once installed: pick yours below and follow its steps.</p>"
    )
    return (
        f"<html><head><title>Core Tools</title><script type='application/ld+json'>"
        f"{json.dumps(data)}</script></head><body><nav><a href='/'>Home</a></nav>"
        f"<main>{intro}{tabs()}</main><footer><p>Core Tools, 2026</p></footer></body></html>"
    )


def read(html: str, kind: str, panels: tuple[str, ...]) -> str:
    found, _ = main_region(
        lxml.html.document_fromstring(html), replace(DEFAULT, panels=panels), kind
    )
    return render(found) if found is not None else ""


def test_the_rules_read_panels_whole_only_on_their_kinds_of_page() -> None:
    html = page("TechArticle", "")
    for kind in ("documentation", "product"):
        text = read(html, kind, ("documentation",))
        assert "Download the installer" in text, kind
        assert ("tap the project's formula" in text) == (kind == "documentation"), kind
        assert ("signing key" in text) == (kind == "documentation"), kind
    assert "signing key" in read(html, "service", ("*",))
    assert "signing key" not in read(html, "documentation", ())  # the rules before


def test_the_shipped_rules_read_a_documentation_pages_tabs_whole_and_not_a_products() -> None:
    assert "product" not in DEFAULT.panels and "documentation" in DEFAULT.panels
    text, is_main, _ = read_typed(page("TechArticle", ""), "https://tools.test/", "markdown", True)
    assert is_main and "Install the command line tools" in text
    for step in STEPS.values():
        assert step in text
    assert "Core Tools, 2026" not in text and "[Home]" not in text
