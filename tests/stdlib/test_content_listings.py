"""A listing's entries (stdlib/content/_items.teasers, shipped) and a lone voter's wider reading
(_selection's `lone`, a Rules choice not shipped): an answer that kept only a listing's intro, or
one item of many that a voter returned, is widened to the entries. Pure functions of small pages."""

from __future__ import annotations

from dataclasses import replace

import lxml.html

from taskplate.stdlib.content import _blocks as blocks
from taskplate.stdlib.content import _items as items
from taskplate.stdlib.content import _selection as content

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


def parsed(body: str) -> list[blocks.Block]:
    doc = lxml.html.document_fromstring(f"<html><body>{body}</body></html>")
    return blocks.blocks(doc.find("body"))


def kept_text(page_blocks: list[blocks.Block], kept: list[bool]) -> str:
    return " ".join(" ".join(b.words) for b, k in zip(page_blocks, kept, strict=True) if k)


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


def test_an_article_with_a_few_related_teasers_keeps_its_body_alone() -> None:
    body = "".join(f"<p>Paragraph {n}: {INTRO}.</p>" for n in range(6))
    page_blocks = parsed(f"<main><article>{body}</article><div>{entries(3)}</div></main>")
    kept = [b.words[0] == "paragraph" for b in page_blocks]
    before = list(kept)
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
    widened = content._lone(page_blocks, kept, texts, rules)
    text = kept_text(page_blocks, widened)
    assert all(f"feature {n} explained" in text for n in range(5))
    assert "sign in" not in text and "privacy" not in text


def test_a_vote_holding_most_of_the_lone_voters_reading_is_left_as_it_is() -> None:
    page_blocks = parsed(f"<main><p>Paragraph one: {INTRO}.</p><p>Two: {INTRO}.</p></main>")
    kept = [True, False]
    texts = [f"Paragraph one: {INTRO}. Two: {INTRO}.", "", ""]
    rules = replace(content.DEFAULT, lone=("trafilatura", 0.3))
    assert content._lone(page_blocks, kept, texts, rules) == [True, False]
