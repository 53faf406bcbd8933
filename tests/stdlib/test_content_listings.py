"""A listing's entries (stdlib/content/_items.teasers, shipped, only groups of entries) and a lone
voter's wider reading (_selection's `lone`, shipped below the answer without short link lines): an
answer that kept only a listing's intro, or one item of many that a voter returned, is widened to
the entries. Pure functions of small pages."""

from __future__ import annotations

from dataclasses import replace

from taskplate.stdlib.content import _blocks as blocks
from taskplate.stdlib.content import _items as items
from taskplate.stdlib.content import _lone as lone
from taskplate.stdlib.content import _selection as content
from tests.stdlib.content_pages import kept_text, parsed, parsed_page

INTRO = (
    "Our team has spent hundreds of hours testing the gear in this guide and every pick below "
    "was chosen after weeks of daily use at home and at work"
)
NAV = (
    "<nav><ul><li><a href='/'>Home</a></li><li><a href='/reviews'>Reviews</a></li>"
    "<li><a href='/login'>Sign in</a></li></ul></nav>"
)
SHIPPED = content.DEFAULT.teasers or 0.0  # the shipped ratio
FOOTER = "<footer><p>Privacy policy, terms of use and cookie settings of the site</p></footer>"


def entries(count: int) -> str:
    return "".join(
        f"<div class='card card-{n}'><h3><a href='/best-{n}'>The best monitor arm number {n}"
        f" for a small desk</a></h3><p>by Reviewer {n}, updated this spring</p></div>"
        for n in range(count)
    )


def test_a_listing_whose_intro_alone_was_kept_keeps_its_entries_with_their_titles() -> None:
    page_blocks = parsed(f"{NAV}<main><p>{INTRO}</p><div class='grid'>{entries(8)}</div></main>"
                         f"{FOOTER}")  # fmt: skip
    kept = [b.words[:2] == ["our", "team"] for b in page_blocks]
    items.teasers(page_blocks, kept, ratio=SHIPPED)
    text = kept_text(page_blocks, kept)
    assert all(f"arm number {n}" in text for n in range(8))  # the titles, links as they are
    assert "reviewer 7" in text
    assert "sign in" not in text and "privacy" not in text


def article_beside(beside: str) -> tuple[list[blocks.Block], list[bool], list[bool]]:
    """An article of six paragraphs with `beside` after it: its blocks, its body kept, and a
    copy of that to compare with."""
    body = "".join(f"<p>Paragraph {n}: {INTRO}.</p>" for n in range(6))
    page_blocks = parsed(f"<main><article>{body}</article>{beside}</main>")
    kept = [b.words[0] == "paragraph" for b in page_blocks]
    return page_blocks, kept, list(kept)


def test_an_article_with_a_few_related_teasers_keeps_its_body_alone() -> None:
    page_blocks, kept, before = article_beside(f"<div>{entries(3)}</div>")
    items.teasers(page_blocks, kept, ratio=SHIPPED)
    assert kept == before  # the teasers hold fewer words than twice the article's


def test_entries_already_kept_are_not_widened_again() -> None:
    page_blocks = parsed(f"<main><p>{INTRO}</p><div class='grid'>{entries(8)}</div></main>")
    kept = [b.words[:2] == ["our", "team"] or "3" in b.words for b in page_blocks]
    before = list(kept)
    items.teasers(page_blocks, kept, ratio=SHIPPED)
    assert kept == before  # the group holds a kept block: the voters judged its items


def test_a_lone_voters_wider_reading_is_kept_when_the_vote_kept_a_small_part_of_it() -> None:
    sections = "".join(
        f"<section><h2>Feature {n}</h2><p>Feature {n} explained: {INTRO}.</p></section>"
        for n in range(5)
    )
    page_blocks = parsed(f"{NAV}<main>{sections}</main>{FOOTER}")
    kept = [b.words[:2] == ["feature", "0"] for b in page_blocks]  # one section of five
    wide = " ".join(f"Feature {n}\n\nFeature {n} explained: {INTRO}." for n in range(5))
    texts = [wide, f"Feature 0 explained: {INTRO}.", ""]
    rules = replace(content.DEFAULT, lone=("trafilatura", 0.5))
    widened = lone.widen(page_blocks, kept, texts, rules, content.choose)
    text = kept_text(page_blocks, widened)
    assert all(f"feature {n} explained" in text for n in range(5))
    assert "sign in" not in text and "privacy" not in text


def test_a_vote_holding_most_of_the_lone_voters_reading_is_left_as_it_is() -> None:
    page_blocks = parsed(f"<main><p>Paragraph one: {INTRO}.</p><p>Two: {INTRO}.</p></main>")
    kept = [True, False]
    texts = [f"Paragraph one: {INTRO}. Two: {INTRO}.", "", ""]
    rules = replace(content.DEFAULT, lone=("trafilatura", 0.3))
    assert lone.widen(page_blocks, kept, texts, rules, content.choose) == [True, False]


def test_entries_are_a_group_of_linked_items_not_the_pages_few_big_sections() -> None:
    # The page's three wrappers outside its main (one holding nearly all of their words) and a
    # review filter's rows without links share a shape, as a listing's entries do: only the
    # entries are a listing.
    filters = "".join(
        f"<div class='filter'><span>Sort reviews by rating {n} stars and newest first</span></div>"
        for n in range(6)
    )
    reviews = "".join(f"<p>Review {n}: {INTRO}.</p>" for n in range(12))
    page_blocks = parsed(
        f"<div class='section'>{NAV}</div><main><p>{INTRO}</p><div class='rows'>{filters}</div>"
        f"<div class='grid'>{entries(8)}</div></main><div class='section'>{reviews}</div>"
        f"<div class='section'>{FOOTER}</div>"
    )
    kept = [b.words[:2] == ["our", "team"] for b in page_blocks]
    guarded = list(kept)
    items.teasers(page_blocks, guarded, ratio=SHIPPED, entries=True)
    text = kept_text(page_blocks, guarded)
    assert all(f"arm number {n}" in text for n in range(8))
    assert "sort reviews" not in text and "review 3" not in text and "privacy" not in text
    items.teasers(page_blocks, kept, ratio=SHIPPED)  # unguarded: the page's wrappers win
    assert "privacy" in kept_text(page_blocks, kept)


def test_filter_rows_without_links_are_no_listing() -> None:
    filters = "".join(
        f"<div class='filter'><span>Sort reviews by rating {n} stars and newest first</span></div>"
        for n in range(6)
    )
    page_blocks = parsed(f"<main><p>{INTRO}</p><div class='rows'>{filters}</div></main>")
    kept = [b.words[:2] == ["our", "team"] for b in page_blocks]
    before = list(kept)
    items.teasers(page_blocks, kept, ratio=SHIPPED, entries=True)
    assert kept == before


TOWN = "The town hall of the city, on Main Street, is open on weekdays from nine to five"


def sections_page() -> tuple[list[blocks.Block], list[bool], list[str]]:
    """A service page: a headline above, five feature sections (the vote kept the first), a
    menu of short links after; the lone voter returned all of it."""
    sections = "".join(
        f"<section><h2>Feature {n}</h2><p>Feature {n} explained: {INTRO}.</p></section>"
        for n in range(5)
    )
    menu = "".join(f"<li><a href='/m{n}'>Archive of month {n}</a></li>" for n in range(12))
    page_blocks = parsed(
        f"<div><h1>The one platform for your whole team and its work</h1></div>"
        f"<main>{sections}</main><ul class='archive'>{menu}</ul><p>{TOWN}</p>"
    )
    kept = [b.words[:2] == ["feature", "0"] for b in page_blocks]
    wide = "The one platform for your whole team and its work. " + " ".join(
        f"Feature {n}\n\nFeature {n} explained: {INTRO}." for n in range(5)
    )
    wide += " " + " ".join(f"Archive of month {n}" for n in range(12)) + f" {TOWN}"
    return page_blocks, kept, [wide, f"Feature 0 explained: {INTRO}.", ""]


def test_a_lone_voters_reading_below_the_answer_is_kept_without_its_short_link_lines() -> None:
    page_blocks, kept, texts = sections_page()
    rules = replace(content.DEFAULT, lone=("trafilatura", 0.7), lone_after=True, lone_links=5)
    text = kept_text(page_blocks, lone.widen(page_blocks, kept, texts, rules, content.choose))
    assert all(f"feature {n} explained" in text for n in range(5))
    assert "platform" not in text  # above the answer: a headline, a box
    assert "month" not in text  # short link lines: a menu, an archive
    assert "town hall" in text
    everything = replace(rules, lone_after=False, lone_links=0)
    text = kept_text(page_blocks, lone.widen(page_blocks, kept, texts, everything, content.choose))
    assert "platform" in text and "month 3" in text


def test_a_lone_voters_reading_left_no_wider_than_the_answer_once_filtered_is_not_kept() -> None:
    # The voter's text is wider only by a menu: once its link lines are left out, what is left
    # adds too little to the answer, and the answer stands.
    body = "".join(f"<p>Paragraph {n}: {INTRO}.</p>" for n in range(3))
    menu = "".join(f"<li><a href='/m{n}'>Month {n} archive</a></li>" for n in range(40))
    page_blocks = parsed(f"<main>{body}</main><ul>{menu}</ul><p>Town hall, Main Street 1</p>")
    kept = [b.words[0] == "paragraph" for b in page_blocks]
    wide = " ".join(f"Paragraph {n}: {INTRO}." for n in range(3))
    wide += " " + " ".join(f"Month {n} archive" for n in range(40)) + " Town hall, Main Street 1"
    rules = replace(content.DEFAULT, lone=("trafilatura", 0.7), lone_after=True, lone_links=5)
    assert lone.widen(page_blocks, kept, [wide, "", ""], rules, content.choose) == kept


def test_a_stray_line_at_the_pages_end_anchors_nothing_with_lone_anchor() -> None:
    # The vote kept one short line below the article (a box's heading); the lone voter returned
    # the article above it. lone_after keeps only what is below the answer: nothing. With
    # lone_anchor, an answer under that many words is no anchor, and the article comes back.
    body = "".join(f"<p>Paragraph {n}: {INTRO}.</p>" for n in range(4))
    page_blocks = parsed(f"<main>{body}</main><aside><h3>Best of the year</h3></aside>")
    kept = [b.words[:2] == ["best", "of"] for b in page_blocks]
    wide = " ".join(f"Paragraph {n}: {INTRO}." for n in range(4)) + " Best of the year"
    rules = replace(content.DEFAULT, lone=("trafilatura", 0.7), lone_after=True, lone_links=5)
    assert lone.widen(page_blocks, kept, [wide, "", ""], rules, content.choose) == kept
    anchored = replace(rules, lone_anchor=10)
    text = kept_text(
        page_blocks, lone.widen(page_blocks, kept, [wide, "", ""], anchored, content.choose)
    )
    assert all(f"paragraph {n}" in text for n in range(4))


def test_justexts_good_blocks_are_kept_when_the_answer_is_a_small_part_of_them() -> None:
    body = "".join(
        f"<p>Paragraph {n} says this in full sentences, and it is the text of the page: {INTRO}.</p>"
        for n in range(4)
    )
    menu = "".join(f"<li><a href='/m{n}'>Month {n}</a></li>" for n in range(12))
    page_blocks = parsed(f"<ul>{menu}</ul><main>{body}</main>")
    kept = [b.words[:2] == ["paragraph", "0"] for b in page_blocks]
    rules = replace(content.DEFAULT, lone_justext=0.5)
    text = kept_text(page_blocks, lone.justext(page_blocks, kept, rules))
    assert all(f"paragraph {n}" in text for n in range(4)) and "month" not in text
    assert lone.justext(page_blocks, kept, replace(rules, lone_justext=0.1)) == kept


def linked_cards(count: int, start: int = 0) -> str:
    return "".join(
        f"<article class='tile-{start}'><a href='/r/{n}'><h3>Crispy air fryer recipe number {n}</h3>"
        f"<span>{n} reviews</span></a></article>"
        for n in range(start, start + count)
    )


def test_an_intro_over_grids_of_linked_titles_keeps_the_titles_of_every_grid() -> None:
    carousel, grid = linked_cards(5), linked_cards(6, start=5)
    page_blocks = parsed(f"{NAV}<main><p>{INTRO}</p><div class='carousel'>{carousel}</div>"
                         f"<div class='grid'>{grid}</div></main>{FOOTER}")  # fmt: skip
    kept = [b.words[:2] == ["our", "team"] for b in page_blocks]
    items.titles(page_blocks, kept, ratio=1.5)
    text = kept_text(page_blocks, kept)
    assert all(f"recipe number {n}" in text for n in range(11))  # in the two groups
    assert "sign in" not in text and "privacy" not in text


def test_an_article_with_a_few_linked_titles_beside_keeps_its_body_alone() -> None:
    page_blocks, kept, before = article_beside(linked_cards(8))
    items.titles(page_blocks, kept, ratio=1.5)
    assert kept == before  # the titles hold fewer words than the article's


def tiles(count: int) -> str:
    """A shop's grid whose every tile is one link: its name, its colours, its size and price."""
    return "".join(
        f"<li class='tile'><a href='/p/{n}'><img src='/{n}.jpg' alt=''><h3>Walnut stool {n}</h3>"
        "<div class='swatches'><div><span>Oak</span></div><div><span>Ash</span></div></div>"
        f"<div class='price'><span>4{n} cm</span> <span>$1{n}9.00</span></div>"
        "<p>Oiled walnut with a brass footrest</p></a></li>"
        for n in range(count)
    )


PROMO = (
    "<div class='notice'><p>Free delivery on every order over fifty dollars to any address in the"
    " country, and returns are free for thirty days after your stool arrives at your door.</p></div>"
)
SHOP = (
    f"{NAV}{PROMO}<main><h1>Stools</h1><p>Showing all 6 results</p><ul class='grid'>{tiles(6)}"
    "</ul></main><nav><a href='/help'><div>Help</div></a><a href='/returns'><div>Returns</div>"
    f"</a></nav>{FOOTER}"
)


def test_a_link_holding_a_card_is_read_as_text_where_the_rules_say() -> None:
    as_links = parsed(SHOP)
    as_cards = blocks.blocks(parsed_page(SHOP)[0].find("body"), cards=True)
    tile = [i for i, b in enumerate(as_cards) if b.words[:2] == ["walnut", "stool"]]
    assert len(tile) == 6 and all(as_links[i].link_chars == as_links[i].chars for i in tile)
    assert all(as_cards[i].link_chars == 0 for i in tile)
    # a link of one element of text (a menu's entry) and a bare link stay links
    assert all(b.link_chars == b.chars for b in as_cards if b.words in (["help"], ["reviews"]))


def test_a_shop_whose_tiles_are_whole_links_answers_their_names_and_prices() -> None:
    # Read as links, the tiles are no text of the page's, and the answer is its delivery notice:
    # so on an article (the shipped rules read cards on collections only).
    for kind, tiles_read in (("collection", True), ("article", False)):
        found, _ = content.main_region(parsed_page(SHOP)[0], content.DEFAULT, kind)
        text = " ".join(found.text_content().split()) if found is not None else ""
        assert ("Walnut stool 5" in text and "$159.00" in text) is tiles_read, (kind, text)
        assert "Sign in" not in text and "Privacy" not in text
