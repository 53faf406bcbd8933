"""Main content by agreement (stdlib/content/_selection.py): the voters, the votes a block needs, and the
shared trafilatura run checked against trafilatura's public API. Pure functions of small pages;
the quality on real pages is measured by bench/content.py."""

from __future__ import annotations

import re
from dataclasses import replace

import lxml.html
import pytest

from taskplate.stdlib.content import _blocks as blocks
from taskplate.stdlib.content import _filling as filling
from taskplate.stdlib.content import _selection as content
from taskplate.stdlib.content import _voters as voters
from taskplate.stdlib.content._markdown import to_markdown
from taskplate.stdlib.content._parse import parse
from tests.fixtures.server import SITE

SENTENCE = (
    "The council met on Tuesday to decide how the new bridge over the river will be paid for, "
    "and it is the first time that the town has had to borrow money for a project of this size"
)


def body_of(html: str) -> tuple[object, list[blocks.Block]]:
    doc = lxml.html.document_fromstring(f"<html><body>{html}</body></html>")
    body = doc.find("body")
    return doc, blocks.blocks(body)


def words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


@pytest.mark.parametrize("page", ["article.html", "story.html", "recipe.html"])
def test_shared_trafilatura_run_reads_what_the_public_api_reads(page: str) -> None:
    doc = parse((SITE / page).read_text(encoding="utf-8"))
    shared = voters.readings(doc, ("trafilatura", "precision", "readability"))
    public = [
        voters._trafilatura(doc, precision=False),
        voters._trafilatura(doc, precision=True),
        voters._readability(doc),
    ]
    for mine, theirs in zip(shared, public, strict=True):
        assert words(mine) == words(theirs)
        assert words(mine)  # every extractor finds the article on these pages


def test_blocks_know_their_link_text_and_headings() -> None:
    _, found = body_of(
        '<h2>Costs <a href="/a">here</a></h2><p>Read <a href="/b">the plan</a> now.</p>'
    )
    heading, paragraph = found
    assert heading.heading and not paragraph.heading
    assert paragraph.chars == len("Read the plan now. ")  # spaces collapsed, one per piece
    assert paragraph.link_chars == len("the plan ")


def test_justext_keeps_prose_and_drops_link_lists_and_copyright_lines() -> None:
    _, found = body_of(
        '<ul><li><a href="/1">Front page and the news of the day</a></li>'
        '<li><a href="/2">Weather and the roads for the weekend</a></li></ul>'
        f"<h2>Bridge tolls</h2><p>{SENTENCE}.</p><p>Short note.</p><p>{SENTENCE}, again.</p>"
        "<p>\u00a9 2026 The Valley Courier and its licensors, all of the rights to this are reserved</p>"
    )
    votes = dict(zip((" ".join(b.words) for b in found), voters.justext_votes(found), strict=True))
    assert not votes["front page and the news of the day"]
    assert votes["bridge tolls"]  # a heading shortly before a good block
    assert votes["short note"]  # a short block between good ones
    assert [v for k, v in votes.items() if k.startswith("the council")] == [True, True]
    assert not any(v for k, v in votes.items() if "licensors" in k)


TWO_OF_THREE = content.Rules(voters=("trafilatura", "precision", "readability"), votes=2)
FOUR = content.Rules(links=0.8)  # jusText's rules as a fourth voter, three votes of four


def test_a_block_needs_three_of_the_four_votes() -> None:
    _, found = body_of(f"<p>{SENTENCE}.</p><p>Menu of the site: sports weather jobs cars homes</p>")
    menu = "Menu of the site: sports weather jobs cars homes"
    rules = FOUR
    # Two extractors hold the menu, jusText's rules do not: two votes of four.
    two = content.choose(found, [f"{SENTENCE}. {menu}", f"{SENTENCE}. {menu}", SENTENCE], rules)
    assert two == [True, False]
    # All three extractors hold it: three votes.
    three = content.choose(found, [f"{SENTENCE}. {menu}"] * 3, rules)
    assert three == [True, True]


def test_justext_abstains_on_a_page_without_a_long_paragraph() -> None:
    _, found = body_of("<p>Opening hours of the hall today</p><p>Tickets cost five pounds</p>")
    assert not any(voters.justext_votes(found))
    text = "Opening hours of the hall today. Tickets cost five pounds"
    # Two of the three extractors agree: that is enough when jusText's rules find nothing.
    assert content.choose(found, [text, text, ""], FOUR) == [True, True]
    assert content.choose(found, [text, "", ""], FOUR) == [False, False]


def test_trafilatura_modes_can_vote_as_one() -> None:
    _, found = body_of(f"<p>{SENTENCE}.</p><p>Menu of the site: sports weather jobs cars homes</p>")
    menu = "Menu of the site: sports weather jobs cars homes"
    # Both trafilatura modes hold the menu, readability does not, jusText's rules do not:
    # two votes of four apart, one of three as a pair.
    texts = [f"{SENTENCE}. {menu}", f"{SENTENCE}. {menu}", SENTENCE]
    apart = content.Rules(votes=2)
    assert content.choose(found, texts, apart) == [True, True]
    assert content.choose(found, texts, content.Rules(votes=2, pair="either")) == [True, False]
    one = [f"{SENTENCE}. {menu}", SENTENCE, f"{SENTENCE}. {menu}"]  # one mode and readability
    assert content.choose(found, one, content.Rules(votes=2, pair="either")) == [True, True]
    assert content.choose(found, one, content.Rules(votes=2, pair="both")) == [True, False]


def test_a_line_of_link_text_needs_every_vote() -> None:
    _, found = body_of(
        f"<p>{SENTENCE}.</p>"
        '<p><strong>Read more: <a href="/b">Storm closes the old ferry crossing for a week</a>'
        f"</strong></p><p>{SENTENCE}, again.</p>"
    )
    line = "Read more: Storm closes the old ferry crossing for a week"
    texts = [f"{SENTENCE}. {line} {SENTENCE}, again."] * 3
    # The three extractors hold the line, jusText's rules do not (it is mostly link text):
    # three votes of four, but a block that is mostly link text needs all four.
    assert content.choose(found, texts, content.Rules(links=None)) == [True, True, True]
    assert content.choose(found, texts, FOUR) == [True, False, True]
    # A paragraph with a link in it is an ordinary block.
    _, plain = body_of(f'<p>{SENTENCE}, says <a href="/c">the council</a>.</p><p>{SENTENCE}.</p>')
    text = f"{SENTENCE}, says the council. {SENTENCE}."
    assert content.choose(plain, [text] * 3, FOUR) == [True, True]


def test_a_rejected_copy_of_a_text_can_leave_its_votes_to_the_next_copy() -> None:
    # A link line repeating the body's sentence (a caption, a teaser) comes first and is
    # rejected (mostly link text: every vote needed, jusText's rules against it).
    _, found = body_of(f'<p><a href="/s">{SENTENCE}</a></p><p>{SENTENCE}.</p>')
    texts = [f"{SENTENCE}."] * 3  # each extractor returned the sentence once
    spent_by_all = content.choose(found, texts, content.Rules(links=0.8, spend="all"))
    assert spent_by_all == [False, False]  # the rejected line used up the votes
    assert content.choose(found, texts, content.Rules(links=0.8, spend="kept")) == [False, True]


def test_a_first_heading_repeating_the_title_can_be_dropped() -> None:
    html = (
        "<html><head><title>Bridge tolls approved | Town Herald</title></head><body>"
        f"<h1>Bridge tolls approved</h1><p>{SENTENCE}.</p><p>{SENTENCE}, again.</p></body></html>"
    )
    texts = [f"Bridge tolls approved. {SENTENCE}. {SENTENCE}, again."] * 3

    def chosen(rules: content.Rules) -> str:
        doc = lxml.html.document_fromstring(html)
        page_blocks = blocks.blocks(doc.find("body"))
        kept = content.choose(page_blocks, texts, rules)
        if rules.title_heading:
            filling.drop_title_heading(doc, page_blocks, kept)
        return " ".join(" ".join(b.words) for b, k in zip(page_blocks, kept, strict=True) if k)

    assert chosen(content.Rules(context=False)).startswith("bridge tolls approved the council")
    assert chosen(content.Rules(context=False, title_heading=True)).startswith("the council")


OTHER = (
    "Work on the new crossing is due to begin in the spring and to last for about two years, "
    "while the old bridge stays open to cars and to people on foot for all of that time"
)
THIRD = (
    "Residents who spoke at the meeting asked that the tolls be lower for those who live in the "
    "town, and the council said that it would look at a discount before the vote in March"
)


def test_a_copy_of_the_body_before_it_leaves_its_votes_to_the_body() -> None:
    # A lead caption (a block before the body) repeats a body sentence; each extractor
    # returned the sentence once.
    rules = TWO_OF_THREE
    # In page order, the caption (first) takes the votes and the body's own copy is dropped.
    _, found = body_of(f"<p>{SENTENCE}</p><p>{OTHER}.</p><p>{SENTENCE}.</p><p>{THIRD}.</p>")
    texts = [f"{OTHER}. {SENTENCE}. {THIRD}."] * 3
    assert content.choose(found, texts, replace(rules, spend="kept")) == [True, True, False, True]
    # The blocks between kept ones (the article's run) spend first: the body's copy wins.
    assert content.choose(found, texts, replace(rules, spend="run")) == [False, True, True, True]


def test_a_line_of_link_text_inside_the_article_is_judged_by_its_votes() -> None:
    _, found = body_of(
        f"<p>{SENTENCE}.</p><p><a href='/shop'>https://shop.example/bridge-kit</a></p>"
        f"<p>{OTHER}.</p><p>{THIRD}.</p><p><a href='/next'>Next story in the series here</a></p>"
    )
    texts = [f"{SENTENCE}. https://shop.example/bridge-kit {OTHER}. {THIRD}."] * 2 + [""]
    # Two extractors hold the link line; jusText's rules vote against any linked block.
    assert content.choose(found, texts, FOUR)[1] is False  # every vote needed
    # Between kept blocks it needs the ordinary count; the line after the article still all.
    assert content.choose(found, texts, replace(FOUR, run_links=2))[1:] == [True, True, True, False]
    # The shipped rules: two votes of the three extractors, no rule for link lines.
    assert content.choose(found, texts, content.DEFAULT)[1] is True


def test_small_captions_and_trailing_tag_lines_can_be_dropped() -> None:
    _, found = body_of(
        f"<figure><img src='/a.jpg'><figcaption>The old bridge at dusk. Photo: A. Lee"
        f"</figcaption></figure><p>{SENTENCE}.</p><p>{OTHER}.</p>"
        "<p>Tags: <a href='/t/1'>Bridges</a>, <a href='/t/2'>Town council</a></p><p>Filed</p>"
    )
    texts = [f"The old bridge at dusk. Photo: A. Lee {SENTENCE}. {OTHER}. Tags: Bridges, "
             "Town council Filed"] * 3  # fmt: skip
    rules = TWO_OF_THREE
    assert content.choose(found, texts, rules) == [True, True, True, True, True]
    assert content.choose(found, texts, replace(rules, captions=20))[0] is False
    assert content.choose(found, texts, replace(rules, tags=True)) == [
        True,
        True,
        True,
        False,
        False,
    ]


def test_a_small_stretch_kept_before_the_main_run_can_be_dropped() -> None:
    # A claim box above the body, then a share bar that no extractor returned, then the body.
    box = "Claim: the new bridge will cost every household ten pounds a year"
    _, found = body_of(
        f"<div><p>{box}</p></div><div><p>Share this story on the sites you use most</p></div>"
        f"<p>{SENTENCE}.</p><p>{OTHER}.</p><p>{THIRD}.</p>"
    )
    texts = [f"{box}. {SENTENCE}. {OTHER}. {THIRD}."] * 3
    rules = TWO_OF_THREE
    assert content.choose(found, texts, rules) == [True, False, True, True, True]
    assert content.choose(found, texts, replace(rules, islands=20)) == [
        False,
        False,
        True,
        True,
        True,
    ]
    # A stretch of as many words as the bound or more (a standfirst) stays: the box has 12.
    assert content.choose(found, texts, replace(rules, islands=12))[0] is True


def test_small_stretches_between_long_ones_stay_when_dropped_only_before_the_start() -> None:
    # A text cut by formulas no extractor returned: the piece between them is a small stretch
    # after the article has started (a long paragraph) and before its main run.
    formula = "x sub i j equals the conjugate of x sub j i for every i and j"
    piece = "Every such matrix is normal as shown here"
    _, found = body_of(
        f"<p>{OTHER}.</p><p>{formula}</p><p>{piece}.</p><p>{formula}</p><p>{SENTENCE}. {THIRD}.</p>"
    )
    texts = [f"{OTHER}. {piece}. {SENTENCE}. {THIRD}."] * 3
    rules = replace(TWO_OF_THREE, islands=20)
    assert content.choose(found, texts, rules) == [True, False, False, False, True]
    started = replace(rules, islands_before="start")
    assert content.choose(found, texts, started) == [True, False, True, False, True]


def test_a_paragraph_the_page_repeats_keeps_its_copies_after_a_kept_one() -> None:
    # The same paragraph three times (headings between), a headline's copy before the body:
    # the extractors returned each text once.
    headline = "Council votes to put tolls on the new bridge"
    _, found = body_of(
        f"<h2>{headline}</h2><h1>{headline}</h1><p>{SENTENCE}.</p><h3>More</h3><p>{SENTENCE}.</p>"
        f"<h3>Again</h3><p>{SENTENCE}.</p>"
    )
    texts = [f"{headline}. {SENTENCE}."] * 3
    rules = TWO_OF_THREE
    judged = content.choose(found, texts, rules)
    assert judged == [True, False, True, False, False, False, False]  # the votes were used up
    repeats = content.choose(found, texts, replace(rules, repeats=True))
    assert repeats == [True, False, True, False, True, False, True]  # the headline's copy not


def test_words_of_scripts_without_spaces_are_counted_in_pairs_of_characters() -> None:
    assert blocks.WORD.findall("美樹營地 資訊 café 東京タワー 2026") == [
        "美樹",
        "營地",
        "資訊",
        "café",
        "東京",
        "タワ",
        "ー",
        "2026",
    ]
    # A sentence there is a long block, not a short label judged by its neighbours.
    _, found = body_of("<p>入夜前雨絲終於漸漸緩和下來</p>")
    assert len(found[0].words) >= content.SHORT


def test_an_embedded_post_inside_the_article_is_kept() -> None:
    post = "Yes this is real and the state spent nearly half a million dollars on it"
    _, found = body_of(
        f"<p>{SENTENCE}.</p><blockquote class='twitter-tweet'><p>{post}</p>"
        f"<p>Someone (@someone) November 18, 2019</p></blockquote><p>{OTHER}.</p>"
        f"<blockquote><p>{THIRD}</p></blockquote>"
    )
    texts = [f"{SENTENCE}. {OTHER}. {THIRD}"] * 3  # the extractors left the post out
    rules = TWO_OF_THREE
    assert content.choose(found, texts, rules) == [True, False, False, True, True]
    # Between kept paragraphs the post is kept; a quotation after the article's last one is
    # judged as any block.
    quoted = content.choose(found, texts, replace(rules, quotes=True))
    assert quoted == [True, True, True, True, True]
    _, after = body_of(f"<p>{SENTENCE}.</p><p>{OTHER}.</p><blockquote><p>{post}</p></blockquote>")
    texts = [f"{SENTENCE}. {OTHER}."] * 3
    assert content.choose(after, texts, replace(rules, quotes=True)) == [True, True, False]


STORY = [
    "The council met on Tuesday night to decide how the new bridge over the river will be paid",
    "Work on the crossing is due to begin in the spring and will last about two years in all",
    "Residents asked that the tolls be lower for those who live in the town and use it daily",
    "The vote on the tolls is set for March after a last round of public meetings in February",
    "The old bridge will stay open to cars and to people on foot while the new one is built",
]


def test_the_shipped_pipeline_drops_a_hidden_copy_and_keeps_an_embedded_post() -> None:
    # The real extractors on a page: a story quoting a post, and a copy of its last paragraph
    # kept hidden for another layout (the extractors return it: the rules before hidden
    # elements were dropped kept it, at the top).
    post = "Yes this is real and the state spent nearly half a million dollars on the campaign"
    lines = [f"<p>{line}, the paper reports today from the town hall.</p>" for line in STORY]
    tweet = (
        f"<blockquote class='twitter-tweet'><p lang='en' dir='ltr'>{post} "
        "<a href='https://t.co/abc'>pic.twitter.com/abc</a></p>&mdash; Someone (@someone) "
        "<a href='https://twitter.com/someone/status/1'>November 18, 2019</a></blockquote>"
        "<script async src='https://platform.twitter.com/widgets.js'></script>"
    )
    hidden = f"<div hidden><p>{STORY[4]}, as the small-screen layout tells it.</p></div>"
    page = (
        "<html><head><title>Bridge tolls</title></head><body><nav><a href='/'>Home</a>"
        "<a href='/news'>News</a></nav><article><h1>Bridge tolls approved</h1>"
        f"{hidden}{''.join(lines[:3])}{tweet}{''.join(lines[3:])}"
        "</article><footer>Contact us, jobs, terms of use</footer></body></html>"
    )
    markdown, is_main = to_markdown(page, "http://x/")
    assert is_main
    assert "small-screen layout" not in markdown and "jobs" not in markdown
    assert all(line in markdown for line in STORY) and post in markdown
    assert "small-screen layout" in to_markdown(page, "http://x/", rules=content.BEFORE)[0]


def test_a_page_of_random_bytes_converts_without_an_extractor_failing_the_read() -> None:
    """Random bytes parse into tag names of control characters, which lxml then refuses to
    match (trafilatura's strip_tags): that extractor reads nothing, the page still converts
    (before: lxml's "All strings must be XML compatible…" reached the caller)."""
    import random

    from taskplate.stdlib.content._markdown import to_html, to_markdown

    page = random.Random(0).randbytes(2_000_000).decode("utf-8", errors="replace")
    for convert in (to_html, to_markdown):
        text, _ = convert(page, "http://127.0.0.1/")
        assert isinstance(text, str)
