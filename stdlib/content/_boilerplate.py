"""Page clean-up before main-content selection: page shapes the selector misreads.

- Teasers nested in the article: an `<article>` inside the article is another story's card
  ("you may also like"), unless it holds most of the text (a wrapper around the real story).
- Blocks named as boilerplate in their class or id: newsletters, sign-ups, related,
  recommended, promoted or trending lists, ad networks' widgets. Matched on whole words of
  the names in any case ("Newsletter-container", "relatedPosts"), never on a block holding the
  title or most of the page's text.
- An article body split by ad rows into several containers of the same tag and class:
  _split_body.py.
- A form holding most of the page's words (the whole page, a thread inside a moderation form)
  is its layout, not a widget: it becomes a plain container, as trafilatura treats it.
- Elements hidden by their own markup, and dialogs: _layers.py.
- Cookie and consent banners (by their names) and sign-in forms (a password field).
- A product's customer reviews (by their names), never a review that is the page's article, nor
  on a page that declares itself an article (a review site names its verdict's sections so).
- Threads of reader comments (named as comments, or schema.org Comment items), which pages'
  scripts write in after loading: long prose that voters take for the article; and by their
  shape, a reply form with the thread around it (reply_threads: never past a post before it).

All work on a parsed page (lxml) in place and only remove or move nodes.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from ._blocks import Block
from ._names import may_be_named, name_parts, parts_of
from ._page_type import declares_article

# Single words of class and id names that mark a block as not the page's own content.
BOILERPLATE_WORDS = frozenset(
    {
        "newsletter",
        "newsletters",
        "signup",
        "subscribe",
        "related",
        "recommend",
        "recommended",
        "recommendations",
        "promo",
        "promos",
        "trending",
        "outbrain",
        "taboola",
    }
)
# Pairs that name a listing of other content ("latest-news", "moreStories").
LISTING_FIRST = frozenset({"latest", "more"})
LISTING_SECOND = frozenset({"news", "stories", "posts", "articles", "videos"})
_NAMED_WORDS = BOILERPLATE_WORDS | LISTING_FIRST  # in every name _names_boilerplate takes

MAJORITY = 0.5  # a nested article holding this share of its outer article is the story itself
DOMINANT = 0.4  # a block holding this share of the page's words is never dropped as boilerplate
MIN_PART_WORDS = 20  # a split body's part has paragraphs of at least this many words

_WORD = re.compile(r"\w+")
_ANY_NAME = re.compile("|".join(sorted(_NAMED_WORDS)), re.IGNORECASE)


def _named_candidates(body: Any) -> list[Any]:
    """The elements whose class or id holds one of the words anywhere, in any case, in document
    order (a cheap first test: most names hold none of the words)."""
    search = _ANY_NAME.search
    found = []
    for element in body.iter(etree.Element):
        get = element.get
        names = get("class"), get("id")
        if (
            ((names[0] and search(names[0])) or (names[1] and search(names[1])))
            and element.tag not in ("article", "main")
            and element is not body
        ):
            found.append(element)
    return found


def words(element: Any) -> int:
    return len(_WORD.findall(element.text_content()))


def drop_nested_teasers(body: Any, listings: bool = False) -> None:
    for outer in body.xpath(".//article[not(ancestor::article)]"):
        total = words(outer)
        inners = outer.xpath(".//article")
        if (
            listings
            and len(inners) >= LISTING_CARDS
            and sum(map(words, inners)) >= MAJORITY * total
        ):
            continue  # many cards holding most of the outer article: a listing in an <article>
        for inner in inners:
            if inner.getparent() is not None and words(inner) < MAJORITY * total:
                inner.drop_tree()


LISTING_CARDS = 10  # an article holding this many cards, most of its words, is a listing


def drop_nested_teasers_but_listings(body: Any) -> None:
    """Stories' cards nested in an article go, unless LISTING_CARDS or more of them hold most of
    its words together (a listing laid out in one <article>; a story's few teasers stay out)."""
    drop_nested_teasers(body, listings=True)


def _names_boilerplate(element: Any) -> bool:
    names = f"{element.get('class', '')} {element.get('id', '')}"
    parts = set(parts_of(names))
    return bool(parts & BOILERPLATE_WORDS) or bool(parts & LISTING_FIRST and parts & LISTING_SECOND)


def drop_named_boilerplate(body: Any) -> None:
    if not may_be_named(body, _NAMED_WORDS):
        return
    named = [element for element in _named_candidates(body) if _names_boilerplate(element)]
    if not named:
        return
    limit = DOMINANT * words(body)
    for element in named:
        if (
            element.getparent() is not None
            and not any(True for _ in element.iter("h1"))
            and words(element) < limit
        ):
            element.drop_tree()


# Whole words of class and id names that mark a thread of reader comments (as pages' scripts
# write them in: a comment widget's container), and schema.org's Comment items.
COMMENT_WORDS = frozenset({"comment", "comments", "disqus", "replies", "respond"})
_ANY_COMMENT = re.compile("|".join(sorted(COMMENT_WORDS)), re.IGNORECASE)


def drop_comment_threads(body: Any) -> None:
    """Reader comments: blocks named as comments in their class or id (whole words, any case)
    or marked up as schema.org Comments, never one holding the title or most of the page."""
    _drop_named(body, COMMENT_WORDS, _ANY_COMMENT, "/Comment")


def _drop_named(body: Any, named: frozenset[str], any_name: re.Pattern[str], kind: str) -> None:
    """The blocks whose class or id holds one of `named` as a whole word (any case; `any_name`
    finds a candidate quickly), or whose schema.org itemtype ends with `kind` (never `article`
    or `main`, nor one holding the title or most of the page's text)."""
    if not kind and not may_be_named(body, named):
        return
    found = []
    for element in body.iter(etree.Element):
        names = f"{element.get('class', '')} {element.get('id', '')}"
        if (kind and element.get("itemtype", "").endswith(kind)) or (
            element is not body
            and element.tag not in ("article", "main")
            and any_name.search(names)
            and set(name_parts(element)) & named
        ):
            found.append(element)
    limit = DOMINANT * words(body) if found else 0
    for element in found:
        if (
            element.getparent() is not None
            and not any(True for _ in element.iter("h1"))
            and words(element) < limit
        ):
            element.drop_tree()


def drop_reply_forms(body: Any) -> None:
    """Reader comments by their shape rather than their names: a form with a text area (where a
    reader writes a reply) and the thread around it, as the largest container of the form that
    holds neither an article nor the page's first h1 nor most of its text."""
    _drop_reply_forms(body, guarded=False)


def _drop_reply_forms(body: Any, guarded: bool) -> None:
    forms = body.xpath(".//form[.//textarea]")
    if not forms:
        return
    limit = DOMINANT * words(body)
    first_h1 = next(body.iter("h1"), None)
    for form in forms:
        if form.getparent() is None or not any(a is body for a in form.iterancestors()):
            continue  # gone with an earlier one
        top = form
        for parent in form.iterancestors():
            if (
                parent is body
                or parent.tag in ("article", "main")
                or any(True for _ in parent.iter("article", "main"))
                or (first_h1 is not None and any(h is first_h1 for h in parent.iter("h1")))
                or words(parent) >= limit
                or (guarded and _prose_before(parent, form) >= PROSE_BEFORE)
            ):
                break
            top = parent
        top.drop_tree()


PROSE_BEFORE = 50  # words of paragraphs before a reply form in its container: a post, not a thread


def drop_reply_threads(body: Any) -> None:
    """drop_reply_forms that never climbs to a container holding, before the form, paragraphs
    of PROSE_BEFORE words or more: the post a reply form follows (on a page without <article>
    or <main>, the title outside the post's wrapper) is not a thread."""
    _drop_reply_forms(body, guarded=True)


def _prose_before(parent: Any, form: Any) -> int:
    total = 0
    for paragraph in parent.iter("p"):
        if paragraph is form or any(a is form for a in paragraph.iterancestors()):
            break
        if form in paragraph.iterdescendants():
            break
        total += words(paragraph)
    return total


# Whole words of class and id names that mark a cookie or consent banner.
CONSENT_WORDS = frozenset({"cookie", "cookies", "consent", "gdpr", "cmp", "onetrust"})
_ANY_CONSENT = re.compile("|".join(sorted(CONSENT_WORDS)), re.IGNORECASE)


def drop_consent_and_sign_in(body: Any) -> None:
    """Cookie and consent banners (named so in their class or id, whole words, any case) and
    sign-in forms (a form with a password field), never one holding the title or most of the
    page's text: chrome the voters take for content on pages with little prose."""
    found = list(body.xpath(".//form[.//input[@type='password']]"))
    for element in body.iter(etree.Element):
        if (
            element is not body
            and element.tag not in ("article", "main")
            and names_consent(element)
        ):
            found.append(element)
    if not found:
        return
    limit = DOMINANT * words(body)
    for element in found:
        if (
            element.getparent() is not None
            and not any(True for _ in element.iter("h1"))
            and words(element) < limit
        ):
            element.drop_tree()


def names_consent(element: Any) -> bool:
    """Whether an element's class or id names it as a cookie or consent banner (whole words)."""
    names = f"{element.get('class', '')} {element.get('id', '')}"
    return bool(_ANY_CONSENT.search(names)) and bool(set(parts_of(names)) & CONSENT_WORDS)


def drop_kept_banners(page_blocks: list[Block], kept: list[bool]) -> None:
    """After the vote: the kept blocks inside an element named as a cookie or consent banner
    (its class or id) holding no h1 (a page about cookies has its title in its text) are not
    kept. Unlike the `consent` clean-up, the voters read the page with the banner in it."""
    banners: dict[Any, bool] = {}

    def banner(element: Any) -> bool:
        if element not in banners:
            parent = element.getparent()
            banners[element] = (
                names_consent(element)
                and element.tag not in ("article", "main", "body")
                and next(element.iter("h1"), None) is None
            ) or (parent is not None and banner(parent))
        return banners[element]

    for i, (block, keep) in enumerate(zip(page_blocks, kept, strict=True)):
        if keep and banner(block.element):
            kept[i] = False


# Whole words of class and id names of a post of a thread (a question, an answer), and of the
# comments under one post.
POST_WORDS = frozenset({"answer", "question", "post"})
POST_COMMENT_WORDS = frozenset({"comment", "comments"})


def drop_post_comments(body: Any) -> None:
    """The comments under posts (a Q&A answer's remarks): blocks named as comments (not as a post)
    in an element named as a post, answer or question with other text and no such post inside, in
    two posts or more (replies under a first post are the thread); never the title nor most words."""
    if not may_be_named(body, POST_COMMENT_WORDS):
        return
    comments = [e for e in body.iter(etree.Element) if e is not body and _post_comments(e)]
    counted: dict[Any, int] = {body: words(body) if comments else 0}  # counted once, if needed
    limit, found = DOMINANT * counted[body], list[tuple[Any, Any]]()
    for element in comments:
        above = list(element.iterancestors())
        if next(element.iter("h1"), None) is not None:
            continue
        size = counted[element] = words(element)
        for node in above[: above.index(body)] if size < limit else []:
            held = set(name_parts(node)) & POST_WORDS and (counted.get(node) or words(node))
            if held and counted.setdefault(node, held) - size >= MIN_PART_WORDS:
                found.append((element, node))
                break
    posts = {post for _, post in found}
    outer = {a for p in posts for a in p.iterancestors() if a in posts}
    for element, post in found if len(posts) >= 2 else []:
        if post not in outer:  # a post's own, not a thread's wrapper around posts of its own
            element.drop_tree()


def _post_comments(element: Any) -> bool:
    names = f"{element.get('class', '')} {element.get('id', '')}"
    parts = set(name_parts(element)) if _ANY_COMMENT.search(names) else set()
    return bool(parts & POST_COMMENT_WORDS) and not parts & POST_WORDS


# Whole words of class and id names that mark a product's customer reviews.
REVIEW_WORDS = frozenset({"review", "reviews"})
_ANY_REVIEW = re.compile("|".join(sorted(REVIEW_WORDS)), re.IGNORECASE)


def drop_reviews(body: Any) -> None:
    """Customer reviews (blocks named so in their class or id, whole words, any case), never
    one holding the title or most of the page's text (a review that is the page's article),
    and none on a page whose markup declares an article (og:type, itemtype): there the blocks
    named as reviews are the article's own (a review site's verdict, its list of picks)."""
    if may_be_named(body, REVIEW_WORDS) and not declares_article(body.getroottree()):
        drop_reviews_anywhere(body)


def drop_reviews_anywhere(body: Any) -> None:
    """drop_reviews on every page, an article's too (the clean-up before its guard)."""
    _drop_named(body, REVIEW_WORDS, _ANY_REVIEW, "")


# Whole words of class and id names that mark a post's signature (the lines its author puts under
# every post) or the author's box beside it.
SIGNATURE_WORDS = frozenset({"signature", "signatures", "postsig", "postprofile"})
_ANY_SIGNATURE = re.compile("|".join(sorted(SIGNATURE_WORDS)), re.IGNORECASE)


def drop_signatures(body: Any) -> None:
    """Posts' signatures and authors' boxes (blocks named so in their class or id, whole words,
    any case), never one holding the title or most of the page's text."""
    _drop_named(body, SIGNATURE_WORDS, _ANY_SIGNATURE, "")


LAYOUT_FORM = 0.5  # a form holding more than this share of the page's words is its layout


def unwrap_layout_forms(body: Any) -> None:
    """A form holding most of the page's words (a whole page or a thread inside a moderation
    form: a layout wrapper, not a search box or a sign-in) becomes a plain container, as
    trafilatura treats it: the rules that take a form for chrome then see its content."""
    forms = list(body.iter("form"))
    if not forms:
        return
    limit = LAYOUT_FORM * words(body)
    for form in forms:
        if words(form) > limit:
            form.tag = "div"


CLEANUPS = {
    "forms": unwrap_layout_forms,
    "consent": drop_consent_and_sign_in,
    "nested_teasers": drop_nested_teasers,
    "nested_listings": drop_nested_teasers_but_listings,
    "named_boilerplate": drop_named_boilerplate,
    "comment_threads": drop_comment_threads,
    "post_comments": drop_post_comments,
    "reply_forms": drop_reply_forms,
    "reply_threads": drop_reply_threads,
    "reviews": drop_reviews,
    "reviews_anywhere": drop_reviews_anywhere,
    "signatures": drop_signatures,
}
