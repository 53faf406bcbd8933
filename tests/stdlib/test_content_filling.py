"""Blocks the vote missed inside the answer's region (stdlib/content/_filling.py): section titles
over kept text, and the prose of the page's <main> around the answer. Pure functions of small pages."""

from __future__ import annotations

from typing import Any

from taskplate.stdlib.content import _filling as filling
from taskplate.stdlib.content._rules import Rules
from tests.stdlib.content_pages import kept_text, parsed

PROSE = (
    "Our technicians service every kind of machine on site within two days of your call and "
    "keep the parts they need in their vans, so most repairs are done in a single visit"
)
NAV = "<nav><ul><li><a href='/'>Home</a></li><li><a href='/services'>Services</a></li></ul></nav>"
FOOTER = "<footer><p>Privacy policy, terms of use and cookie settings of the site</p></footer>"


def sections(count: int) -> str:
    return "".join(
        f"<section class='row-{n}'><h2>Section {n} title</h2><h3>Its subtitle</h3>"
        f"<p>Part {n}: {PROSE}.</p><ul><li>First point of part {n} in words</li></ul></section>"
        for n in range(count)
    )


def test_a_section_title_over_kept_text_is_kept_but_not_the_headline_above_the_answer() -> None:
    page_blocks = parsed(f"<main><h1>Workshop</h1>{sections(3)}</main>")
    kept = [b.words[:1] == ["part"] for b in page_blocks]
    filling.headings(page_blocks, kept)
    text = kept_text(page_blocks, kept)
    assert "section 1 title its subtitle part 1" in text
    assert "section 2 title" in text
    assert "section 0 title" not in text and "workshop" not in text  # above the answer's start


def test_a_linked_heading_of_a_teaser_is_not_kept() -> None:
    page_blocks = parsed(
        f"<p>Kept: {PROSE}.</p><h3><a href='/other'>Another story entirely</a></h3><p>{PROSE}.</p>"
    )
    kept = [True, False, True]
    filling.headings(page_blocks, kept)
    assert kept == [True, False, True]


def test_the_prose_of_the_main_around_the_answer_is_kept_not_its_chrome() -> None:
    page = (
        f"{NAV}<main><div class='hero'><p>Intro: {PROSE}.</p></div>{sections(3)}"
        f"<aside><p>Sidebar words that are not the page's own content at all</p></aside></main>"
        f"{FOOTER}"
    )
    page_blocks = parsed(page)
    kept = [b.words[:2] == ["part", "1"] for b in page_blocks]  # one section of many kept
    filling.fill(page_blocks, kept, 4)  # the answer's own element is one section: nothing new
    assert kept_text(page_blocks, kept).startswith("part 1") and "part 0" not in kept_text(
        page_blocks, kept
    )
    filling.fill(page_blocks, kept, 4, region="main")
    text = kept_text(page_blocks, kept)
    assert "intro" in text and all(f"part {n}" in text for n in range(3))
    assert "first point of part 2" in text
    assert "sidebar" not in text and "privacy" not in text and "home" not in text


def test_what_a_landmark_role_marks_as_chrome_is_not_filled_in_nor_completed() -> None:
    filters = "".join(
        f"<label><input type='checkbox'><span>Filter size with value {size} for the list</span>"
        "</label>"
        for size in ("small", "medium", "large", "extra large")
    )
    page = (
        f"<main><div role='navigation'><fieldset>{filters}</fieldset></div>"
        f"<div role='search'><p>Search the catalogue of every machine we repair</p></div>"
        f"{sections(3)}</main>"
    )
    page_blocks = parsed(page)
    kept = [b.words[:2] == ["part", "1"] for b in page_blocks]
    filling.fill(page_blocks, kept, 4, region="main")
    text = kept_text(page_blocks, kept)
    assert all(f"part {n}" in text for n in range(3))
    assert "filter" not in text and "catalogue" not in text
    filling.complete(page_blocks, kept, 1, every=True)  # the filters' labels are no item group
    assert "filter" not in kept_text(page_blocks, kept)


def test_without_a_main_the_answer_is_not_filled_from_the_body() -> None:
    page_blocks = parsed(f"<div class='a'><p>Kept: {PROSE}.</p></div><p>Other: {PROSE}.</p>")
    kept = [True, False]
    filling.fill(page_blocks, kept, 4, region="main")
    filling.fill(page_blocks, kept, 4, region="column")  # no header nor footer: no column
    filling.fill(page_blocks, [True, False], 4)
    assert kept == [True, False]


def filled_from_part_one(page: str, **options: Any) -> str:
    """The text kept once the answer holding only the page's first part is filled so."""
    page_blocks = parsed(page)
    kept = [b.words[:2] == ["part", "1"] for b in page_blocks]
    filling.fill(page_blocks, kept, 4, **options)
    return kept_text(page_blocks, kept)


def test_without_a_main_the_column_between_the_header_and_footer_is_the_region() -> None:
    page = (
        f"<div class='page'><header>{NAV}<p>Call us today for a quote on any repair, any time "
        f"of day</p></header><div class='content'><div class='hero'><p>Intro: {PROSE}.</p></div>"
        f"{sections(3)}</div>{FOOTER}</div>"
    )
    text = filled_from_part_one(page, region="column")
    assert "intro" in text and all(f"part {n}" in text for n in range(3))
    assert "call us" not in text and "privacy" not in text


def test_a_page_without_main_nor_frame_fills_from_its_wrapper_when_told() -> None:
    page = (
        f"<div class='page'><div class='hero'><p>Intro: {PROSE}.</p></div>"
        f"<div class='content'>{sections(3)}<aside><p>Sidebar words that are not the page's own "
        f"content at all</p></aside></div></div><div class='legal'><p>Legal: {PROSE}.</p></div>"
    )
    alone = filled_from_part_one(page, region="column")  # no frame: no column
    assert alone.startswith("part 1") and "intro" not in alone
    text = filled_from_part_one(page, region="column", otherwise="page")
    assert "intro" in text and all(f"part {n}" in text for n in range(3))
    assert "sidebar" not in text and "legal" not in text


def test_a_menu_link_the_vote_kept_does_not_widen_the_region_with_prose() -> None:
    page = (
        f"<div class='site'><div class='menu'><a href='/repair'>Repair</a></div>"
        f"<main><div class='row'><p>Part 0: {PROSE}.</p></div>"
        f"<div class='row'><h2>Part 1 title</h2><p>Part 1: {PROSE}.</p></div></main>"
        f"<div class='legal'><p>Legal: {PROSE}.</p></div></div>"
    )
    page_blocks = parsed(page)
    kept = [b.words[:1] == ["repair"] or b.words[:2] == ["part", "1"] for b in page_blocks]
    filling.fill(page_blocks, kept, 4, region="main", prose=True)
    text = kept_text(page_blocks, kept)
    assert "part 0" in text and "legal" not in text
    kept = [b.words[:1] == ["repair"] or b.words[:2] == ["part", "1"] for b in page_blocks]
    filling.fill(page_blocks, kept, 4, region="main")  # around the link too: no <main>
    assert "part 0" not in kept_text(page_blocks, kept)


def test_comments_an_author_box_and_other_articles_in_the_main_are_not_filled() -> None:
    page = (
        f"<main><article class='post'><p>Kept: {PROSE}.</p></article>"
        f"<div class='author-box'><p>Author: {PROSE}.</p></div>"
        f"<ol class='comment-list'><li><p>Comment: {PROSE}.</p></li></ol>"
        f"<article class='teaser'><p>Teaser: {PROSE}.</p></article>"
        f"<section><p>Section: {PROSE}.</p></section></main>"
    )
    page_blocks = parsed(page)
    kept = [b.words[0] == "kept" for b in page_blocks]
    filling.fill(page_blocks, kept, 4, region="main")
    assert [b.words[0] for b, k in zip(page_blocks, kept, strict=True) if k] == ["kept", "section"]


def test_an_answer_is_not_filled_when_the_region_adds_less_than_grow_times_its_words() -> None:
    page = f"<main><div><p>Kept: {PROSE}. {PROSE}. {PROSE}.</p></div><p>Box: {PROSE}.</p></main>"
    page_blocks = parsed(page)
    kept = [True, False]
    filling.fill(page_blocks, kept, 4, region="main", grow=0.5)  # a third: an article and its box
    assert kept == [True, False]
    filling.fill(page_blocks, kept, 4, region="main", grow=0.25)
    assert kept == [True, True]


def cards(count: int) -> str:
    return "".join(
        f"<li class='card'><h3><a href='/p/{n}'>Oak chair model {n}</a></h3>"
        f"<div><a href='/p/{n}'>$1{n}9.00</a></div><p>Card {n}: solid oak, seats one adult.</p>"
        f"<form><button>Add chair {n} to basket</button></form></li>"
        for n in range(count)
    )


def test_cards_read_in_part_are_completed_with_their_linked_title_and_price() -> None:
    page_blocks = parsed(f"<main><h1>Chairs</h1><ul class='grid'>{cards(4)}</ul></main>")
    kept = [b.words[:1] == ["card"] for b in page_blocks]  # the vote kept each card's text only
    filling.complete(page_blocks, kept, 2)
    text = kept_text(page_blocks, kept)
    assert all(f"oak chair model {n} 1{n}9 00 card {n}" in text for n in range(4))
    assert "basket" not in text and "chairs" not in text  # a form is chrome; outside the items
    kept = [b.words[:1] == ["card"] for b in page_blocks]
    filling.complete(page_blocks, kept, 2, size=10)  # items of more words: a thread's posts
    assert "oak chair model" not in kept_text(page_blocks, kept)


def test_one_card_read_is_no_list_read_in_part() -> None:
    page_blocks = parsed(f"<main><ul class='grid'>{cards(4)}</ul></main>")
    kept = [b.words[:2] == ["card", "1"] for b in page_blocks]  # one item: a quote, a match
    filling.complete(page_blocks, kept, 2)
    assert kept_text(page_blocks, kept) == "card 1 solid oak seats one adult"


def test_with_every_the_items_of_a_group_read_in_part_that_hold_no_kept_block_are_kept() -> None:
    """A guide's steps in one grid: the vote passed over the first step's text, kept the others;
    the step is an item of equal standing. A single item read (a match, a quote) is still no
    group read in part, a form stays chrome, and an item over `size` words stays out."""
    steps = "".join(
        f"<div class='step'><h4>Step {n}</h4><p>Do {n}: {PROSE}.</p></div>" for n in range(4)
    )
    page_blocks = parsed(f"<main><div class='grid'>{steps}</div>{FOOTER}</main>")
    kept = [b.words[:2] in (["do", "1"], ["do", "2"]) for b in page_blocks]
    filling.complete(page_blocks, kept, 2)  # the two steps read, their headings: not the others
    assert "do 0" not in kept_text(page_blocks, kept)
    filling.complete(page_blocks, kept, 2, every=True)
    text = kept_text(page_blocks, kept)
    assert all(f"step {n} do {n}" in text for n in range(4)) and "privacy" not in text
    one = [b.words[:2] == ["do", "1"] for b in page_blocks]
    filling.complete(page_blocks, one, 2, every=True)
    assert kept_text(page_blocks, one).startswith("do 1") and "do 0" not in kept_text(
        page_blocks, one
    )
    kept = [b.words[:2] in (["do", "1"], ["do", "2"]) for b in page_blocks]
    filling.complete(page_blocks, kept, 2, size=10, every=True)
    assert "do 0" not in kept_text(page_blocks, kept)
    forms = parsed(f"<main><ul class='grid'>{cards(4)}</ul></main>")
    kept = [b.words[:2] in (["card", "1"], ["card", "2"]) for b in forms]
    filling.complete(forms, kept, 2, every=True)
    text = kept_text(forms, kept)
    assert "card 0" in text and "card 3" in text and "basket" not in text


def test_on_a_page_declaring_an_article_the_items_the_vote_passed_over_stay_out() -> None:
    """The shipped rules complete a group's unread items on every page but an article's (its
    markup says so): there the groups around the story are teasers of other stories."""
    teasers = "".join(
        f"<div class='card'><h4>Story {n}</h4><p>Teaser {n}: {PROSE}.</p></div>" for n in range(4)
    )
    rules = Rules(complete=2, complete_size=150, complete_all=True, complete_all_articles=False)
    for head, read in (("", True), ("<meta property='og:type' content='article'>", False)):
        page_blocks = parsed(f"{head}<main><div class='grid'>{teasers}</div></main>")
        kept = [b.words[:2] in (["teaser", "1"], ["teaser", "2"]) for b in page_blocks]
        filling.widen(page_blocks, kept, rules)
        assert ("teaser 0" in kept_text(page_blocks, kept)) is read


def test_link_lines_between_kept_prose_in_its_element_are_kept_but_not_the_menu() -> None:
    page = (
        f"{NAV}<div class='text'><p>First: {PROSE}.</p><ul><li><a href='/f1'>Permit form, PDF"
        f"</a></li><li><a href='/f2'>Complaint form</a></li></ul><p>Last: {PROSE}.</p></div>"
        f"<aside><p>Around: {PROSE}.</p><p><a href='/x'>A link beside the text</a></p></aside>"
        f"<p>Later: {PROSE}.</p>"
    )
    page_blocks = parsed(page)
    kept = [b.words[:1] in (["first"], ["last"], ["around"], ["later"]) for b in page_blocks]
    filling.inner_links(page_blocks, kept)
    text = kept_text(page_blocks, kept)
    assert "permit form pdf complaint form" in text
    assert "home" not in text and "a link beside" not in text  # before the prose; in the chrome


def test_the_prose_between_the_page_title_and_the_answer_is_its_lead() -> None:
    lead = "<p class='lead'>Repairs of every machine in your workshop, on site, within two days</p>"
    links = "<p><a href='/a'>Call us now</a> <a href='/b'>Book a visit online today</a></p>"
    page_blocks = parsed(f"{NAV}<main><h1>Workshop repairs</h1>{lead}{links}{sections(2)}</main>")
    kept = [b.words[:1] == ["part"] for b in page_blocks]
    filling.lead(page_blocks, kept)
    text = kept_text(page_blocks, kept)
    assert "repairs of every machine in your workshop" in text
    assert "book a visit" not in text and "workshop repairs" not in text and "home" not in text
    # no h1 near above the answer: no lead
    far = "".join(
        f"<p>Paragraph {n} of a long story told before the answer starts</p>" for n in range(6)
    )
    page_blocks = parsed(f"<main><h1>Workshop repairs</h1>{far}{lead}{sections(2)}</main>")
    kept = [b.words[:1] == ["part"] for b in page_blocks]
    filling.lead(page_blocks, kept)
    assert "repairs of every machine" not in kept_text(page_blocks, kept)


def test_a_list_a_kept_sentence_introduces_is_kept_without_its_links() -> None:
    steps = (
        "<ol><li>Loft the curves</li><li>Cap the holes</li><!-- a comment -->"
        "<li><a href='/pipes'>Create solid pipes, a tutorial of its own</a></li></ol>"
    )
    page = (
        f"<div><p>Kept: {PROSE}.</p><p>You will learn how <em>to</em>:</p>{steps}"
        f"<p>Not introduced, {PROSE}.</p><ul><li>Mirror objects</li></ul>"
        f"<p>Kept again: {PROSE}.</p></div>"
    )
    page_blocks = parsed(page)
    kept = [b.words[:1] == ["kept"] or b.words[:1] == ["you"] for b in page_blocks]
    filling.introduced(page_blocks, kept)
    text = kept_text(page_blocks, kept)
    assert "you will learn how to loft the curves cap the holes" in text
    assert "pipes" not in text and "mirror" not in text  # a link line; a list no kept line opens
    # An introducing sentence the answer left out opens nothing.
    kept = [b.words[:1] == ["kept"] for b in page_blocks]
    filling.introduced(page_blocks, kept)
    assert "loft" not in kept_text(page_blocks, kept)
