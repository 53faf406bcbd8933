"""The clean-ups run before main-content selection, on small pages: what each removes or joins,
and what its guards keep."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import lxml.html

from taskplate.stdlib.content._boilerplate import (
    drop_comment_threads,
    drop_named_boilerplate,
    drop_nested_teasers,
    drop_post_comments,
    drop_reply_forms,
    drop_reply_threads,
    drop_reviews,
    drop_reviews_anywhere,
    drop_signatures,
    unwrap_layout_forms,
)
from taskplate.stdlib.content._layers import (
    drop_controls,
    drop_dialogs,
    drop_hidden,
    drop_hidden_but_answers,
    drop_hidden_but_panels,
    drop_named_modals,
    drop_screen_reader_text,
)
from taskplate.stdlib.content._markdown import to_markdown
from taskplate.stdlib.content._selection import main_content
from taskplate.stdlib.content._split_body import join_split_body
from taskplate.stdlib.content._threads import drop_author_boxes, drop_post_asides

SENTENCE = "The council met on Tuesday to decide how the new bridge over the river will be paid for"


def paragraphs(label: str, count: int = 2) -> str:
    return "".join(f"<p>{label} {n}: {SENTENCE}.</p>" for n in range(count))


def clean(doc: Any) -> None:
    """The first three clean-ups: teasers in the story, blocks named as boilerplate, a split body."""
    body = doc.find("body")
    drop_nested_teasers(body)
    drop_named_boilerplate(body)
    join_split_body(body)


def cleaned(body: str) -> str:
    doc = lxml.html.document_fromstring(f"<html><body>{body}</body></html>")
    clean(doc)
    return doc.text_content()


def test_teaser_articles_nested_in_the_story_are_dropped() -> None:
    text = cleaned(
        f"<article><h1>Bridge</h1>{paragraphs('Story', 4)}"
        f"<article><h3>Seed fair</h3><p>Growers trade beans.</p></article></article>"
    )
    assert "Story 3" in text and "Seed fair" not in text


def test_an_article_wrapping_the_story_is_kept() -> None:
    text = cleaned(f"<article><p>Dateline</p><article><h1>Bridge</h1>{paragraphs('Story', 4)}"
                   "</article></article>")  # fmt: skip
    assert "Story 3" in text


def test_blocks_named_as_boilerplate_are_dropped_in_any_case_and_spelling() -> None:
    text = cleaned(
        f"<article><h1>Bridge</h1>{paragraphs('Story', 6)}</article>"
        '<div class="Newsletter-container">Sign up today</div>'
        '<section id="moreStories">Other stories</section>'
        '<ul class="relatedPosts"><li>Related one</li></ul>'
        '<div class="latest-news-box">Latest headline</div>'
    )
    assert "Story 5" in text
    for gone in ("Sign up today", "Other stories", "Related one", "Latest headline"):
        assert gone not in text, gone


def test_names_match_whole_words_only() -> None:
    text = cleaned(
        f"<article><h1>Bridge</h1>{paragraphs('Story', 6)}"
        '<p class="unrelated-note">Kept note</p><div class="promotional">Kept offer</div>'
        '<div class="more-info">Kept info</div></article>'
    )
    assert "Kept note" in text and "Kept offer" in text and "Kept info" in text


def test_a_boilerplate_name_never_drops_the_title_or_most_of_the_page() -> None:
    text = cleaned(
        f'<div class="promo-wrapper"><h1>Bridge</h1>{paragraphs("Titled", 2)}</div>'
        f'<div class="related-body">{paragraphs("Dominant", 8)}</div>'
        '<div class="promo">Short offer</div>'
    )
    assert "Titled 1" in text and "Dominant 7" in text and "Short offer" not in text


def test_a_body_split_by_ad_rows_is_joined_in_order() -> None:
    page = (
        f'<h1>Bridge</h1><div class="grid"><div class="body part">{paragraphs("First", 3)}</div>'
        '<aside class="rail">Ad</aside></div><div class="ad-row">Advertisement</div>'
        f'<div class="grid"><div class="body part">{paragraphs("Second", 3)}</div></div>'
    )
    doc = lxml.html.document_fromstring(f"<html><body>{page}</body></html>")
    clean(doc)
    parts = doc.xpath("//div[@class='body part']")
    assert len(parts) == 1
    assert [p.text_content()[:8] for p in parts[0]] == ["First 0:", "First 1:", "First 2:",
                                                         "Second 0", "Second 1", "Second 2"]  # fmt: skip
    markdown, is_main = to_markdown(lxml.html.tostring(doc, encoding="unicode"), "http://x/")
    assert is_main and "First 0" in markdown and "Second 2" in markdown


def test_a_body_is_not_joined_into_the_banner_that_shares_its_class() -> None:
    # a page builder's widgets share one class: the banner's, the article's, the footer's
    widget = 'class="widget-container"'
    page = (
        f"<header><div {widget}><p>Coffee reviews, guides and news</p></div></header>"
        f"<main><h1>Drip coffee makers</h1><div {widget}>{paragraphs('Story', 8)}</div>"
        f"<div {widget}>{paragraphs('More', 4)}</div></main>"
        f"<footer><div {widget}>{paragraphs('Footer', 2)}</div></footer>"
    )
    doc = lxml.html.document_fromstring(f"<html><body>{page}</body></html>")
    clean(doc)
    main = doc.find(".//main")
    assert "Story 7" in main.text_content() and "More 3" in main.text_content()
    assert "Story" not in doc.find(".//header").text_content()
    assert "Footer 1" in doc.find(".//footer").text_content()
    markdown, is_main = to_markdown(lxml.html.tostring(doc, encoding="unicode"), "http://x/")
    assert is_main and "Story 7" in markdown and "More 3" in markdown


def test_a_body_split_inside_a_menu_is_still_joined() -> None:
    # the parts' own frame (a builder that wraps the whole page in a <nav>) is no reason apart
    parts = "".join(f'<div class="text">{paragraphs(f"Part{n}", 2)}</div><hr>' for n in range(3))
    doc = lxml.html.document_fromstring(f"<html><body><nav>{parts}</nav></body></html>")
    clean(doc)
    assert len(doc.xpath("//div[@class='text']")) == 1


def test_small_repeated_blocks_are_not_joined() -> None:
    comments = "".join(f'<div class="comment"><p>Nice {n}</p></div>' for n in range(5))
    doc = lxml.html.document_fromstring(
        f"<html><body><article>{paragraphs('Story', 6)}</article>{comments}</body></html>"
    )
    clean(doc)
    assert len(doc.xpath("//div[@class='comment']")) == 5


def test_comment_threads_are_dropped_by_name_or_markup_but_not_a_commentary() -> None:
    doc = lxml.html.document_fromstring(
        f"<html><body><article><h1>Bridge</h1>{paragraphs('Story', 6)}</article>"
        f"<section id='comments'>{paragraphs('Reader')}</section>"
        f"<div itemscope itemtype='https://schema.org/Comment'>{paragraphs('Guest')}</div>"
        f"<div class='commentary'>{paragraphs('Column')}</div></body></html>"
    )
    drop_comment_threads(doc.find("body"))
    text = doc.text_content()
    assert "Story 5" in text and "Column 1" in text
    assert "Reader" not in text and "Guest" not in text


REPLY_FORM = "<form><p>Name <input name='author'></p><textarea name='comment'></textarea></form>"


def test_a_reply_form_goes_with_the_thread_around_it() -> None:
    doc = lxml.html.document_fromstring(
        f"<html><body><div id='page'><h1>Bridge</h1>{paragraphs('Story', 6)}"
        f"<div id='x1'><h1>Reviews</h1><div>{REPLY_FORM}</div><hr><b>Ann</b> <i>2018-02-24</i>"
        f"{paragraphs('Reader')}</div></div><form><input name='q'></form></body></html>"
    )
    drop_reply_forms(doc.find("body"))
    text = doc.text_content()
    assert "Story 5" in text and "Bridge" in text
    assert "Reader" not in text and "Reviews" not in text and "Ann" not in text
    assert doc.xpath("//input[@name='q']")  # a form without a text area stays


def test_a_reply_form_never_takes_the_article_or_the_title() -> None:
    doc = lxml.html.document_fromstring(
        f"<html><body><article><h1>Bridge</h1>{paragraphs('Story', 6)}{REPLY_FORM}</article>"
        "</body></html>"
    )
    drop_reply_forms(doc.find("body"))
    text = doc.text_content()
    assert "Story 5" in text and "Bridge" in text
    assert not doc.xpath("//textarea")
    # The page's first h1 (its title) and what holds it stay, whatever their size.
    doc = lxml.html.document_fromstring(
        f"<html><body><div><h1>Bridge</h1><p>Short: {SENTENCE}.</p><div>{REPLY_FORM}</div></div>"
        f"<aside>{paragraphs('Other', 8)}</aside></body></html>"
    )
    drop_reply_forms(doc.find("body"))
    assert "Short" in doc.text_content() and not doc.xpath("//textarea")


def test_a_guarded_reply_form_never_climbs_past_the_post_before_it() -> None:
    # No <article> or <main>, the title outside the post's wrapper, the form inside it, and
    # more text beside the post than in it.
    page = (
        f"<html><body><h1>Bridge</h1><div class='post'>{paragraphs('Story', 4)}"
        f"<div class='reply'>{REPLY_FORM}</div></div><aside>{paragraphs('Other', 10)}</aside>"
        "</body></html>"
    )
    doc = lxml.html.document_fromstring(page)
    drop_reply_forms(doc.find("body"))
    assert "Story 3" not in doc.text_content()  # the unguarded clean-up took the post
    doc = lxml.html.document_fromstring(page)
    drop_reply_threads(doc.find("body"))
    assert "Story 3" in doc.text_content() and not doc.xpath("//textarea")
    # The default rules' clean-up is the guarded one: the post is the main content read.
    read = main_content(lxml.html.document_fromstring(page))
    assert read is not None and "Story 3" in read.text_content()


def after(cleanup: Callable[[Any], None], body: str) -> str:
    """The text of a page's `body` once one clean-up ran over it, spaces joined."""
    doc = lxml.html.document_fromstring(f"<html><body>{body}</body></html>")
    cleanup(doc.find("body"))
    return " ".join(doc.text_content().split())


def test_elements_hidden_by_their_own_markup_are_dropped() -> None:
    page = (
        f"{paragraphs('Body', 4)}<p hidden>Hidden copy.</p>"
        "<div style='color: red; DISPLAY :none'>Other layout.</div>"
        "<p style='visibility: hidden'>Invisible.</p><p style='display: block'>Shown.</p>"
        "<p>Tail <span style='display:none'>inline</span> end.</p>"
    )
    text = after(drop_hidden, page)
    assert "Body 3" in text and "Shown." in text and "Tail end." in text
    for gone in ("Hidden copy", "Other layout", "Invisible", "inline"):
        assert gone not in text


def test_a_hidden_element_holding_most_of_the_page_stays() -> None:
    # A body a script reveals after loading, read without the script (engine http).
    page = f"<div hidden>{paragraphs('Body', 4)}</div><p>Menu, sign in, search.</p>"
    assert "Body 3" in after(drop_hidden, page)


def test_hidden_panels_a_reader_opens_stay_when_panels_are_spared() -> None:
    page = (
        f"{paragraphs('Body', 4)}"
        "<div role='tabpanel' style='display: none'>Second tab's forms.</div>"
        "<div class='accordion-body' hidden>The answer to a question.</div>"
        "<div class='tab-content' style='display:none'>Third tab.</div>"
        "<div class='mobile-copy' hidden>Other layout.</div>"
    )
    text = after(drop_hidden_but_panels, page)
    assert "Second tab's forms." in text and "The answer to a question." in text
    assert "Third tab." in text and "Other layout" not in text
    assert "Second tab" not in after(drop_hidden, page)  # the clean-up shipped before: all go


def test_a_faqs_hidden_answers_stay_when_answers_are_spared() -> None:
    page = (
        f"{paragraphs('Body', 4)}<div class='faq__question'>What is a certificate?</div>"
        "<div class='faq__answer' style='display: none;'>A short course's record.</div>"
        "<div class='mobile-copy' hidden>Other layout.</div>"
    )
    text = after(drop_hidden_but_answers, page)
    assert "A short course's record." in text and "Other layout" not in text
    assert "A short course" not in after(drop_hidden_but_panels, page)


def test_dialogs_are_dropped_whatever_their_words_but_not_one_holding_the_title() -> None:
    page = (
        f"{paragraphs('Body', 2)}<div role='dialog' aria-modal='true'>{paragraphs('Policy', 9)}"
        f"</div><dialog><p>Sign in to your account.</p></dialog>"
        f"<div aria-modal='true'><h1>The page's title</h1>{paragraphs('Shown', 1)}</div>"
    )
    text = after(drop_dialogs, page)
    assert "Body 1" in text and "Shown 0" in text
    assert "Policy" not in text and "Sign in" not in text


def test_layers_named_as_modals_are_dropped_but_not_a_gloss_nor_one_holding_every_title() -> None:
    page = (
        f"<h1>Sneakers</h1>{paragraphs('Body', 2)}"
        f"<footer><div id='modal-terms-of-service'><h1>Terms of service</h1>"
        f"{paragraphs('Terms', 9)}</div><div class='newsletter-popup'>Sign up</div></footer>"
        "<p>A <a class='popup' href='#g'>scrivener</a> copies law papers by hand.</p>"
    )
    text = after(drop_named_modals, page)
    assert "Body 1" in text and "scrivener" in text
    assert "Terms" not in text and "Sign up" not in text
    shown = f"<div class='modal-page'><h1>The page's title</h1>{paragraphs('Shown', 1)}</div>"
    assert "Shown 0" in after(drop_named_modals, shown)


def test_screen_reader_text_is_dropped_but_not_one_holding_the_page() -> None:
    page = (
        f"{paragraphs('Body', 2)}<p><span class='visually-hidden'>Regular price</span> $19.99"
        "</p><a class='skip sr-only' href='#main'>Skip to content</a>"
    )
    text = after(drop_screen_reader_text, page)
    assert "Body 1" in text and "$19.99" in text
    assert "Regular price" not in text and "Skip to" not in text
    whole = f"<div class='screen-reader-text'>{paragraphs('Spoken', 3)}</div>"
    assert "Spoken 2" in after(drop_screen_reader_text, whole)


def test_controls_are_dropped_but_not_a_longer_button() -> None:
    page = (
        f"{paragraphs('Body', 2)}<button>Quick shop</button><select><option>Price, low to high"
        "</option></select><button class='accordion'>How long does a repair take?</button>"
    )
    text = after(drop_controls, page)
    assert "Body 1" in text and "How long does a repair take" in text
    assert "Quick shop" not in text and "low to high" not in text


def test_comments_under_a_post_are_dropped_but_not_a_thread_of_replies() -> None:
    def answer(n: int) -> str:
        return (
            f"<div class='answer' id='answer-{n}'>{paragraphs(f'Answer {n}')}"
            f"<div class='post-layout'><div class='comments'><ul><li class='comment'>"
            f"Nice trick {n}, thanks</li></ul></div></div></div>"
        )

    text = after(drop_post_comments, f"<h1>Question</h1>{answer(0)}{answer(1)}")
    assert "Answer 1 1" in text and "Nice trick" not in text
    # replies named as comments that are the page's thread (most of its words) stay
    replies = "".join(f"<div class='comment'>{paragraphs(f'Reply {n}')}</div>" for n in range(4))
    thread = f"<div class='post'><p>First post of the thread.</p>{replies}</div>"
    assert "Reply 3 1" in after(drop_post_comments, thread)
    # ... and so do a few under the first post beside a long sidebar: one post holds them all
    few = "".join(f"<div class='comment'>{paragraphs(f'Reply {n}', 1)}</div>" for n in range(2))
    first = f"<div class='post'>{paragraphs('First', 2)}{few}</div>"
    assert "Reply 1 0" in after(
        drop_post_comments, f"{first}<aside>{paragraphs('Side', 6)}</aside>"
    )
    # ... and posts whose own text is named as a comment, in a feed named as posts, stay
    feed = "".join(
        f"<article class='post'><aside class='comment-author'>member{n}</aside>"
        f"<div class='comment-content'>{paragraphs(f'Post {n}')}</div></article>"
        for n in range(3)
    )
    text = after(drop_post_comments, f"<div id='postFeed'>{feed}</div>")
    assert "Post 2 1" in text and "member2" not in text


def test_many_cards_holding_most_of_an_article_are_a_listing_not_its_teasers() -> None:
    def cards(count: int) -> str:
        return "".join(
            f"<article><h3>Card {n}</h3><p>{SENTENCE}.</p></article>" for n in range(count)
        )

    def kept(page: str, listings: bool) -> str:
        doc = lxml.html.document_fromstring(f"<html><body><article>{page}</article></body></html>")
        drop_nested_teasers(doc.find("body"), listings=listings)
        return doc.text_content()

    listing = f"<h1>Reviews of electronics</h1><p>Intro.</p>{cards(12)}"
    assert "Card 11" in kept(listing, listings=True) and "Card 11" not in kept(listing, False)
    story = f"{paragraphs('Story', 1)}{cards(6)}"  # a short story's few teasers
    assert "Card 0" not in kept(story, listings=True) and "Story 0" in kept(story, True)


def test_customer_reviews_are_dropped_but_not_a_review_that_is_the_page() -> None:
    page = (
        f"<main><h1>Trail pack</h1>{paragraphs('Description', 3)}"
        f"<section class='product-reviews'><h2>Reviews</h2>{paragraphs('Buyer', 2)}</section>"
        f"<div class='previewer'>{paragraphs('Preview', 1)}</div></main>"
    )
    text = after(drop_reviews, page)
    assert "Description 2" in text and "Preview 0" in text  # whole words only
    assert "Buyer" not in text
    review = f"<div class='review-body'><h1>Bridge, reviewed</h1>{paragraphs('Verdict', 4)}</div>"
    assert "Verdict 3" in after(drop_reviews, review)


def test_blocks_named_as_reviews_stay_on_a_page_that_declares_an_article() -> None:
    picks = (
        f"<main><h1>The best laptops</h1>{paragraphs('Intro', 1)}"
        f"<section class='review-card'><h2>Pick one</h2>{paragraphs('Verdict', 2)}</section>"
        f"<section class='product-reviews'><h2>Pick two</h2>{paragraphs('Tested', 2)}</section>"
        "</main>"
    )
    for declared in (
        "<meta property='og:type' content='article'>",
        "<div itemscope itemtype='https://schema.org/BlogPosting'></div>",
    ):
        doc = lxml.html.document_fromstring(f"<html><head>{declared}</head><body>{picks}</body>")
        drop_reviews(doc.find("body"))
        text = doc.text_content()
        assert "Verdict 1" in text and "Tested 1" in text, declared
    shop = lxml.html.document_fromstring(
        f"<html><head><meta property='og:type' content='product'></head><body>{picks}</body>"
    )
    drop_reviews(shop.find("body"))
    assert "Intro 0" in shop.text_content() and "Verdict" not in shop.text_content()
    assert "Verdict" not in after(drop_reviews_anywhere, picks)  # the clean-up before its guard


def test_posts_signatures_and_author_boxes_are_dropped_but_not_a_page_about_signatures() -> None:
    posts = "".join(
        f"<article class='post'><dl class='postprofile'><dd>Posts: {n}00</dd></dl>"
        f"{paragraphs(f'Post {n}')}<div class='message-signature'>My rig: tower {n}</div>"
        "</article>"
        for n in range(3)
    )
    text = after(drop_signatures, f"<h1>Thread</h1>{posts}")
    assert "Post 2" in text
    assert "My rig" not in text and "Posts: " not in text
    # a page whose subject is signatures keeps its article (it holds the title)
    about = f"<div class='signature-guide'><h1>Signing a letter</h1>{paragraphs('Sign', 4)}</div>"
    assert "Sign 3" in after(drop_signatures, about)


def thread(author: str, count: int, tag: str) -> str:
    """`count` posts of a thread, each with `author` (`{n}`: the post's number) beside its text."""
    return "".join(
        f"<{tag} class='post'>{author.format(n=n)}<div>{paragraphs(f'Post {n}')}</div></{tag}>"
        for n in range(count)
    )


def thread_after(cleanup: Callable[[Any], None], author: str, count: int, tag: str) -> str:
    """A thread's text once `cleanup` ran over it: every post's own text is still there."""
    text = after(cleanup, f"<h1>Thread</h1><div class='posts'>{thread(author, count, tag)}</div>")
    assert all(f"Post {n} 1" in text for n in range(count))
    return text


def test_the_authors_column_beside_each_post_is_dropped_but_an_articles_own_aside_stays() -> None:
    column = (
        "<aside><div>member{n}</div><ul><li>{n}.2k Reputation</li><li>Joined 201{n}</li></ul>"
        "</aside>"
    )
    text = thread_after(drop_post_asides, column, 3, "article")
    assert "Reputation" not in text and "member" not in text and "Joined" not in text
    # two posts are no thread of authors' columns; a story's pull quote is its own
    assert "Reputation" in thread_after(drop_post_asides, column, 2, "article")
    story = f"<article>{paragraphs('Story')}<aside><p>The quote that matters.</p></aside></article>"
    assert "The quote that matters" in after(drop_post_asides, story)
    # asides in articles that are not siblings (three stories, each in its own column)
    apart = "".join(f"<div class='column'>{story}</div>" for _ in range(3))
    assert after(drop_post_asides, apart).count("The quote that matters") == 3


def test_the_authors_box_named_under_every_post_is_dropped_but_an_articles_byline_stays() -> None:
    boxes = (
        "<div class='message-userDetails'><b>member{n}</b> Well-known member</div>"
        "<div class='message-userExtras'>Joined 201{n} Messages {n}0</div>"
    )
    text = thread_after(drop_author_boxes, boxes, 2, "div")
    assert "Well-known" not in text and "Joined" not in text and "member1" not in text
    # one author's box is an article's byline; a team page's members' boxes are its text
    byline = f"<div class='author-info'>By Ann Lee</div>{paragraphs('Story', 4)}"
    assert "By Ann Lee" in after(drop_author_boxes, byline)
    team = "".join(
        f"<div class='member-profile'><h3>Member {n}</h3><p>{SENTENCE}.</p></div>" for n in range(4)
    )
    assert "Member 3" in after(drop_author_boxes, f"<h1>Our team</h1>{team}")


def test_a_form_holding_most_of_the_page_is_its_layout_but_a_search_box_stays_a_form() -> None:
    # A thread whose posts sit inside a moderation form (a checkbox beside each post).
    posts = "".join(
        f"<article class='post'><input type='checkbox' name='select'>{paragraphs(f'Post {n}')}"
        "</article>"
        for n in range(3)
    )
    page = (
        "<form class='search'><input name='q'><button>Search the forum</button></form>"
        f"<form class='moderation' method='post'>{posts}</form><p>Footer words.</p>"
    )
    doc = lxml.html.document_fromstring(f"<html><body>{page}</body></html>")
    unwrap_layout_forms(doc.find("body"))
    assert [f.get("class") for f in doc.iter("form")] == ["search"]
    assert "Post 2 1" in doc.find("body").xpath("string(div[@class='moderation'])")
