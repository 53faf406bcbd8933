"""Pages of many items of equal standing (stdlib/content/_items.py): a thread's posts, a product's
sections, a listing's entries kept together; the widest region when the main content is empty; the
Markdown of such pages without empty links or empty list lines. Pure functions of small pages."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import lxml.html

from taskplate.stdlib.content import _boilerplate as boilerplate
from taskplate.stdlib.content import _items as items
from taskplate.stdlib.content import _lone as lone
from taskplate.stdlib.content import _selection as content
from taskplate.stdlib.content._markdown import render, to_markdown
from tests.stdlib.content_pages import kept_text
from tests.stdlib.content_pages import parsed_page as parsed

REPLY = (
    "I had the same trouble with the cache after the upgrade and it went away once I cleared "
    "the old files from the folder and restarted the worker, so try that first"
)
NAV = (
    "<nav><ul><li><a href='/'>Home</a></li><li><a href='/forum'>Forum</a></li>"
    "<li><a href='/help'>Help</a></li><li><a href='/login'>Sign in</a></li></ul></nav>"
)
FOOTER = "<footer><p>Privacy policy, terms of use and cookie settings of the site</p></footer>"


def thread(posts: int) -> str:
    return "".join(
        f"<div class='post post-{n}'><div class='who'>member{n}</div>"
        f"<div class='message'><p>Post {n}: {REPLY}.</p></div></div>"
        for n in range(posts)
    )


def test_a_thread_with_the_question_kept_keeps_its_answers() -> None:
    _, page_blocks = parsed(f"{NAV}<main><h1>Cache trouble</h1>{thread(5)}</main>{FOOTER}")
    kept = [b.words[:2] == ["post", "0"] for b in page_blocks]  # the voters kept the question
    items.widen(page_blocks, kept, ratio=1.5, links=False)
    text = kept_text(page_blocks, kept)
    assert all(f"post {n}" in text for n in range(5))
    assert "member3" in text  # the items' own short lines: who wrote each post
    assert "sign in" not in text and "privacy" not in text


def test_an_answer_already_holding_the_items_is_left_as_it_is() -> None:
    _, page_blocks = parsed(f"<main>{thread(4)}<p>{REPLY} and more, at length.</p></main>")
    kept = [True] * len(page_blocks)
    kept[0] = False  # the first author line, left out by the voters
    before = list(kept)
    items.widen(page_blocks, kept, ratio=1.5, links=False)
    assert kept == before  # the group holds no more than the answer: nothing widened


def test_comments_under_an_article_are_not_items_of_the_article() -> None:
    story = "".join(f"<p>{REPLY}, the story says in part {n}.</p>" for n in range(3))
    comments = "".join(
        f"<div class='reply'><p>Comment {n}: {REPLY}, {REPLY}.</p></div>" for n in range(6)
    )
    _, page_blocks = parsed(f"<article>{story}</article><section>{comments}</section>")
    kept = [b.words[0] != "comment" for b in page_blocks]
    items.widen(page_blocks, kept, ratio=1.5, links=False)
    assert "comment" not in kept_text(page_blocks, kept)  # no kept block inside the group


def test_a_product_page_keeps_its_feature_sections_beside_the_description() -> None:
    sections = "".join(
        f"<div class='feature'><h3>Feature {n}</h3><p>{REPLY}, feature {n} of the sock.</p></div>"
        for n in range(4)
    )
    specs = "<table><tr><th>Weight</th><td>120 g</td></tr><tr><th>Size</th><td>M</td></tr></table>"
    _, page_blocks = parsed(
        f"{NAV}<div class='product'><h1>Quarter sock</h1><div class='features'>{sections}</div>"
        f"{specs}<button>Add to cart</button></div>{FOOTER}"
    )
    kept = [b.words[:2] == ["feature", "0"] or "0" in b.words[-5:] for b in page_blocks]
    items.widen(page_blocks, kept, ratio=1.5, links=False)
    text = kept_text(page_blocks, kept)
    assert all(f"feature {n}" in text for n in range(4))
    assert "home" not in text


def test_a_listing_keeps_every_entry_with_its_title_links_when_asked() -> None:
    entries = "".join(
        f"<li class='entry'><h2><a href='/story/{n}'>Story number {n} of the week</a></h2>"
        f"<p>{REPLY}, entry {n}.</p></li>"
        for n in range(6)
    )
    _, page_blocks = parsed(f"{NAV}<main><h1>News</h1><ul class='entries'>{entries}</ul></main>")
    first = [b.words[-2:] == ["entry", "0"] for b in page_blocks]
    plain, linked = list(first), list(first)
    items.widen(page_blocks, plain, ratio=1.5, links=False)
    items.widen(page_blocks, linked, ratio=1.5, links=True)
    assert all(f"entry {n}" in kept_text(page_blocks, plain) for n in range(6))
    assert "story number 3" not in kept_text(page_blocks, plain)
    assert all(f"story number {n}" in kept_text(page_blocks, linked) for n in range(6))
    assert "forum" not in kept_text(page_blocks, linked)  # the menu's links are no item's


def test_a_page_without_main_content_answers_its_widest_region_not_the_whole_page() -> None:
    # Short posts no voter takes for an article: the main content is empty; the answer is the
    # thread (the widest region), marked as not the main content, without the menu or footer.
    posts = "".join(
        f"<div class='post'><span class='who'>member{n}</span><p>Same here, cleared it, works {n}"
        "</p></div>"
        for n in range(8)
    )
    page = f"<html><body>{NAV}<div class='thread'>{posts}</div>{FOOTER}</body></html>"
    whole, whole_is_main = to_markdown(page, "http://x/", rules=content.Rules(voters=()))
    region, is_main = to_markdown(page, "http://x/", rules=content.Rules(voters=(), least=0.05))
    assert not whole_is_main and "Sign in" in whole  # before: the whole page
    assert not is_main
    assert all(f"works {n}" in region for n in range(8))
    assert "Sign in" not in region and "Privacy" not in region


def test_the_shipped_rules_read_a_thread_whole_and_never_empty() -> None:
    page = (
        f"<html><head><title>Cache trouble</title></head><body>{NAV}<main>"
        f"<h1>Cache trouble after the upgrade</h1>{thread(6)}</main>{FOOTER}</body></html>"
    )
    markdown, is_main = to_markdown(page, "http://x/")
    assert is_main and all(f"Post {n}:" in markdown for n in range(6))
    assert "Sign in" not in markdown and "Privacy" not in markdown


def test_markdown_has_no_empty_links_nor_empty_list_lines() -> None:
    doc = lxml.html.fromstring(
        "<div><p>Intro of the page with a few words.</p>"
        "<ul><li><a href='/a'><img src='data:,x'></a></li><li><a href='/b'> </a></li>"
        "<li>-</li><li>\u2022</li><li><ul><li>-</li></ul></li><li>Real item</li></ul>"
        "<p>See <a href='/c'><img src='/i.png'></a> and <a href='/d'>the docs</a>.</p></div>"
    )
    markdown = render(doc)
    assert "[]" not in markdown and "[](" not in markdown
    assert not re.search(r"^\s*(?:[-*+]\s*)+$", markdown, re.M)  # no line of empty items
    assert "- Real item" in markdown and "[the docs](/d)" in markdown


def test_a_product_description_hidden_from_the_page_comes_from_its_json_ld() -> None:
    described = (
        "The quarter sock is knit for comfort, higher than an ankle sock and lower than a calf "
        "sock, with a cushioned footbed and a honeycomb arch support for long days on foot."
    )
    data = {"@context": "https://schema.org", "@type": "Product", "name": "Sock"}
    data["description"] = described
    specs = "".join(
        f"<tr><th>Material {n}</th><td>Cotton blend {n} of combed cotton, nylon and elastane</td></tr>"
        for n in range(3)
    )
    page = (
        "<html><head><title>Sock</title><script type='application/ld+json'>"
        f"{json.dumps(data)}</script></head><body>{NAV}<main><h1>Quarter sock</h1>"
        f"<p>{REPLY}, the specification below says it all and at length.</p>"
        f"<table>{specs}</table></main>{FOOTER}</body></html>"
    )
    without, _ = to_markdown(page, "http://x/", rules=replace(content.DEFAULT, offers=False))
    markdown, is_main = to_markdown(page, "http://x/", rules=replace(content.DEFAULT, offers=True))
    assert "knit for comfort" not in without
    assert is_main and described in markdown
    assert "Cotton blend 2" in markdown and "application" not in markdown


def test_a_threads_posts_missing_from_the_page_come_from_its_json_ld() -> None:
    question = "Since Tuesday's upgrade every build stops at the deploy step, whichever branch"
    answer = "Pin the runtime's version in the settings panel; the worker has run ever since."
    data = {"@context": "https://schema.org", "@type": "DiscussionForumPosting"}
    data |= {"headline": "Cache trouble", "text": question}
    data["comment"] = [{"@type": "Comment", "text": answer}]
    menu = "".join(f"<li><a href='/s{n}'>Search scope {n}</a></li>" for n in range(8))
    page = (
        "<html><head><title>Cache trouble</title><script type='application/ld+json'>"
        f"{json.dumps(data)}</script></head><body>{NAV}<main><h1>Cache trouble</h1>"
        f"<p>{REPLY}, said the sidebar of tips on every page of the forum.</p><ul>{menu}</ul>"
        f"</main>{FOOTER}</body></html>"
    )
    without, _ = to_markdown(page, "http://x/", rules=replace(content.DEFAULT, posts=False))
    markdown, _ = to_markdown(page, "http://x/", rules=replace(content.DEFAULT, posts=True))
    assert "the worker has run ever since" not in without
    assert question in markdown and "the worker has run ever since" in markdown


def test_cookie_banners_and_sign_in_forms_are_dropped_before_the_vote() -> None:
    page = lxml.html.document_fromstring(
        "<html><body><div id='cookie-banner'><p>We use cookies to improve your experience "
        "of this site and to show you offers</p></div><form><input name='user'>"
        "<input type='password' name='pw'><p>Sign in to your account to see your orders</p>"
        f"</form><main><p>{REPLY}.</p><p>{REPLY}, twice.</p></main></body></html>"
    )
    body = page.find("body")
    boilerplate.drop_consent_and_sign_in(body)
    text = body.text_content()
    assert "cookies" not in text and "Sign in" not in text and "twice" in text


def test_a_page_whose_text_is_all_in_noscript_is_read_from_it() -> None:
    posts = "".join(f"<div class='post'><p>Post {n}: {REPLY}.</p></div>" for n in range(3))
    app = f"<html><body><div id='app'></div><noscript>{posts}</noscript></body></html>"
    markdown, is_main = to_markdown(app, "http://x/")
    assert is_main and all(f"Post {n}:" in markdown for n in range(3))
    copy = (
        f"<html><body><main>{posts}</main><noscript><p>Turn on script</p></noscript></body></html>"
    )
    assert "Turn on script" not in to_markdown(copy, "http://x/", only_main=False)[0]


def test_kept_text_of_a_cookie_banner_is_dropped_after_the_vote_but_not_a_cookie_policy() -> None:
    banner = (
        "<div id='onetrust-consent-sdk'><h3>Your privacy</h3><p>These cookies are set by a range "
        "of social media services that we have added to the site to let you share</p></div>"
    )
    _, page_blocks = parsed(f"<main><p>{REPLY}.</p><p>{REPLY}, twice.</p></main>{banner}")
    kept = [True] * len(page_blocks)
    boilerplate.drop_kept_banners(page_blocks, kept)
    assert "twice" in kept_text(page_blocks, kept)
    assert "cookies" not in kept_text(page_blocks, kept) and "privacy" not in kept_text(
        page_blocks, kept
    )
    policy = (
        "<div class='cookie-policy'><h1>Cookie policy</h1><p>These cookies are set by a range "
        "of social media services that we have added to the site to let you share</p></div>"
    )
    _, page_blocks = parsed(policy)
    kept = [True] * len(page_blocks)
    boilerplate.drop_kept_banners(page_blocks, kept)
    assert all(kept)  # the page about cookies, its title inside the named element


def test_a_question_outside_its_answers_container_keeps_the_answers_of_its_shape() -> None:
    question = f"<div class='post question'><div class='body'><p>Question: {REPLY}.</p></div></div>"
    answers = "".join(
        f"<div class='post answer'><div class='body'><p>Answer {n}: {REPLY}.</p></div>"
        f"<div class='tools'><a href='/share/{n}'>share this answer with friends</a></div></div>"
        for n in range(4)
    )
    _, page_blocks = parsed(f"{NAV}<main>{question}<section>{answers}</section></main>{FOOTER}")
    kept = [b.words[0] == "question" for b in page_blocks]
    items.widen(page_blocks, kept, ratio=1.5, links=False)  # no group holds the question
    assert kept_text(page_blocks, kept).count("answer") == 0
    items.kin(page_blocks, kept, ratio=1.5)  # the answers' bodies share the question's shape
    text = kept_text(page_blocks, kept)
    assert all(f"answer {n}" in text for n in range(4))
    assert "share this answer" not in text and "sign in" not in text


def test_comments_under_an_article_are_no_kin_of_its_body() -> None:
    story = "".join(f"<p>{REPLY}, the story says in part {n}.</p>" for n in range(3))
    comments = "".join(
        f"<div class='comment'><p>Comment {n}: {REPLY}, {REPLY}.</p></div>" for n in range(6)
    )
    _, page_blocks = parsed(
        f"<article class='story'>{story}</article><section>{comments}</section>"
    )
    kept = [b.words[0] != "comment" for b in page_blocks]
    items.kin(page_blocks, kept, ratio=1.5)
    assert "comment" not in kept_text(page_blocks, kept)


def test_a_group_of_wrappers_one_of_them_the_whole_page_is_not_widened_with_even() -> None:
    big = "".join(f"<p>Shop text {n}: {REPLY}.</p>" for n in range(8))
    page = (
        "<div class='section'><p>Kept intro of the page, a sentence of plain words here.</p></div>"
        f"<div class='section'>{big}</div><div class='section'><p>Small {REPLY}.</p></div>"
    )
    _, page_blocks = parsed(page)
    kept = [b.words[0] == "kept" for b in page_blocks]
    items.widen(page_blocks, kept, ratio=1.5, links=False, even=True)
    assert kept_text(page_blocks, kept).startswith("kept") and "shop" not in kept_text(
        page_blocks, kept
    )
    items.widen(page_blocks, kept, ratio=1.5, links=False)
    assert "shop" in kept_text(page_blocks, kept)  # without the guard, the wrappers are items


def test_an_answer_of_linked_titles_is_not_replaced_by_a_smaller_region_with_least_words() -> None:
    titles = "".join(
        f"<li><a href='/job/{n}'>Senior engineer {n} for a remote team building tools</a></li>"
        for n in range(20)
    )
    page = f"<p>Looking for roles? Fill your open roles with us today.</p><ul>{titles}</ul>"
    _, page_blocks = parsed(page)
    kept = [bool(b.link_chars) for b in page_blocks]  # the titles: all link text
    answer = list(kept)
    assert items.fallback(page_blocks, kept, True, 0.1, every=True) == (answer, True)
    wider, is_main = items.fallback(page_blocks, kept, True, 0.1)
    assert not is_main and wider != answer  # by plain words alone, the intro wins


def test_readability_is_the_wider_reading_when_it_returned_far_more_than_trafilatura() -> None:
    sections = "".join(
        f"<section><h2>Part {n}</h2><p>{REPLY}, part {n}.</p></section>" for n in range(6)
    )
    _, page_blocks = parsed(f"<main>{sections}</main>")
    first = " ".join(page_blocks[1].words)
    whole = " ".join(" ".join(b.words) for b in page_blocks)
    rules = replace(content.DEFAULT, rival=3.0)
    kept = [i == 1 for i in range(len(page_blocks))]
    texts = [first, first, whole]  # trafilatura's two modes and readability's
    assert all(lone.widen(page_blocks, kept, texts, rules, content.choose)[2:])
    assert lone.widen(page_blocks, kept, texts, replace(rules, rival=None), content.choose) == kept


def posts(line: str) -> str:
    """Four forum posts, each with `line` over its text (`{n}`: its number) and the same links
    under it."""
    return "".join(
        f"<div class='post'>{line.format(n=n)}<p>Post {n}: {REPLY}.</p>"
        "<div class='tools'><a href='#'>Share</a> <a href='#'>Quote</a></div></div>"
        for n in range(4)
    )


def test_the_labels_under_every_post_are_dropped_and_the_posts_stay() -> None:
    who = posts("<div class='who'>member{n}</div>")
    _, page_blocks = parsed(f"<main><h2>Replies</h2>{who}<h2>Replies</h2></main>")
    kept = [True] * len(page_blocks)
    items.labels(page_blocks, kept, most=4, times=3)
    text = kept_text(page_blocks, kept)
    assert "share" not in text and "quote" not in text  # the same label under every post
    assert all(f"member{n} post {n}" in text for n in range(4))  # each post's own short line
    assert text.count("replies") == 2  # headings are never labels


def test_a_short_line_kept_twice_is_no_label() -> None:
    _, page_blocks = parsed(f"<main><p>{REPLY}.</p><p>See below</p><p>{REPLY}!</p><p>See below</p>"
                            "</main>")  # fmt: skip
    kept = [True] * len(page_blocks)
    items.labels(page_blocks, kept, most=4, times=3)
    assert all(kept)


def test_with_linked_only_link_lines_are_labels() -> None:
    rank = posts("<div class='rank'>Member</div>")
    _, page_blocks = parsed(f"<main>{rank}</main>")
    kept = [True] * len(page_blocks)
    items.labels(page_blocks, kept, most=4, times=3, linked=True)
    text = kept_text(page_blocks, kept)
    assert "share" not in text and text.count("member") == 4  # a rank is no link: it stays


def test_with_lines_a_rank_is_a_label_but_not_a_tables_repeated_value() -> None:
    rank = posts("<div class='rank'>Member</div>")
    cells = "".join(f"<tr><td>Port {n}</td><td>Default</td></tr>" for n in range(4))
    _, page_blocks = parsed(f"<main>{rank}<table>{cells}</table></main>")
    kept = [True] * len(page_blocks)
    items.labels(page_blocks, kept, most=4, times=3, linked=True, lines=True)
    text = kept_text(page_blocks, kept)
    assert "member" not in text and "share" not in text and text.count("default") == 4


def test_with_lines_a_price_on_every_card_is_a_value_not_a_label() -> None:
    cards = posts("<div class='price'>$19.99</div><div class='rank'>Member</div>")
    _, page_blocks = parsed(f"<main>{cards}</main>")
    kept = [True] * len(page_blocks)
    items.labels(page_blocks, kept, most=4, times=3, linked=True, lines=True)
    text = kept_text(page_blocks, kept)
    assert text.count("19") == 4 and "member" not in text


def test_a_replys_quotation_of_an_earlier_post_is_not_kept_but_an_articles_quotation_is() -> None:
    page = (
        f"<div class='post'><p>First: {REPLY}.</p></div>"
        f"<div class='post'><blockquote><p>First: {REPLY}.</p></blockquote>"
        f"<p>Second: thanks, that worked for me as well after I cleared the folder.</p></div>"
        f"<div class='post'><blockquote><p>A line quoted from a book that nobody here wrote "
        f"before in this thread at all.</p></blockquote></div>"
    )
    _, page_blocks = parsed(page)
    kept = [True] * len(page_blocks)
    items.quoted(page_blocks, kept)
    assert kept == [True, False, True, True]


def test_a_cards_title_said_again_is_kept_once_but_a_line_far_apart_stays() -> None:
    def card(name: str) -> str:
        return (
            f"<div class='card'><a href='/p'>{name} coffee</a><h3><a href='/p'>{name} coffee</a>"
            f"</h3><p>$19.99</p><p>Dark roast, fair trade beans from {name}.</p></div>"
        )

    page = f"<main>{card('Blue')}{card('Red')}<p>Blue coffee</p></main>"
    _, page_blocks = parsed(page)
    kept = [True] * len(page_blocks)
    items.echoes(page_blocks, kept, most=16)
    text = kept_text(page_blocks, kept)
    assert text.count("red coffee") == 1 and text.count("19 99") == 2
    assert text.count("blue coffee") == 2  # the card's title once, and the line far below it


def test_a_shops_grid_reads_each_card_once_without_spoken_labels_and_buttons() -> None:
    """The shipped rules on a shop's grid: a card's title said again (its image's link), the
    "Regular price" only a screen reader speaks and the "Quick shop" button go; its title,
    price and text stay."""

    def card(name: str) -> str:
        return (
            f"<div class='product-card'><a href='/p/{name}'>{name} roast coffee</a>"
            f"<h3><a href='/p/{name}'>{name} roast coffee</a></h3><p><span class="
            f"'visually-hidden'>Regular price</span> $19.99</p><p>Whole beans from {name} "
            f"farms, roasted each week and sent within two days.</p><button>Quick shop</button>"
            "</div>"
        )

    names = ("Dark", "Light", "House", "Winter", "Morning", "Evening")
    page = (
        f"<html><body>{NAV}<main><h1>Coffee</h1><div class='grid'>"
        f"{''.join(card(n) for n in names)}</div></main>{FOOTER}</body></html>"
    )
    text = to_markdown(page, "https://shop.test/coffee")[0]
    for name in names:
        assert text.count(f"{name} roast coffee") == 1, text
    assert text.count("$19.99") == len(names) and "Whole beans from Winter" in text
    assert "Regular price" not in text and "Quick shop" not in text


def test_a_faqs_answers_hidden_until_opened_are_read() -> None:
    faq = "".join(
        f"<div class='faq__item'><div class='faq__question'>How fresh are the beans {n}?</div>"
        f"<div class='faq__answer' style='display: none'>Roasted in the week you order them {n}"
        ", never older than seven days when they leave the roastery for your door.</div></div>"
        for n in range(3)
    )
    page = (
        f"<html><body>{NAV}<main><h1>Coffee</h1><p>Our coffee is roasted in small batches "
        f"every week.</p><h2>Questions</h2>{faq}</main>{FOOTER}</body></html>"
    )
    text = to_markdown(page, "https://shop.test/coffee")[0]
    assert all(f"Roasted in the week you order them {n}" in text for n in range(3)), text
    hidden = replace(content.DEFAULT, cleanups=("hidden_panels",))  # the clean-up before
    assert "Roasted in the week" not in to_markdown(page, "https://shop.test/c", rules=hidden)[0]
