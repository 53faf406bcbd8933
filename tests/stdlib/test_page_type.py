"""`page_type`: the kind of page from its structure and markup, on small local fixture pages;
nothing of it names a site (bench/page_types.py measures it on WCXB's dev split)."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from taskplate.stdlib.content import PAGE_TYPES, page_type, read_typed
from taskplate.stdlib.content import _page_type as classifier
from taskplate.stdlib.content import _page_type_weights as weights
from taskplate.stdlib.content._parse import parse

SITE = Path(__file__).parents[1] / "fixtures" / "site"


def read(name: str) -> str:
    return (SITE / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("page", "kind"),
    [
        ("kinds/news.html", "article"),
        ("kinds/forum.html", "forum"),
        ("kinds/product.html", "product"),
        ("kinds/docs.html", "documentation"),
    ],
)
def test_a_page_is_known_by_its_structure_and_markup(page: str, kind: str) -> None:
    assert page_type(read(page)) == kind


def test_a_page_with_no_text_to_read_is_other() -> None:
    assert page_type("") == "other"
    assert page_type("   ") == "other"
    assert page_type("<html><body><p>Sign in</p><form><input></form></body></html>") == "other"
    assert page_type("\x00\x01 not html at all") == "other"


def test_every_answer_is_one_of_the_published_types() -> None:
    assert (*classifier.TYPES, "other") == PAGE_TYPES
    odd = "<html><body>" + "<div><a href='/x'>tile</a></div>" * 300 + "</body></html>"
    for html in (odd, read("shop/listing.html"), read("recipe.html"), read("form.html")):
        assert page_type(html) in PAGE_TYPES


def test_the_weights_name_features_of_markup_never_a_site() -> None:
    """Every weight is of a feature `features` computes (tags, marks of class and id words,
    declared schema.org and OpenGraph types, counts): no host, domain or URL is among them."""
    scripts: list[str] = []
    known = set(classifier.features(parse(read("kinds/forum.html"), scripts), scripts))
    known |= {f"declares {k}" for k in classifier.DECLARED}
    known |= {f"declares og:{k}" for k in (*classifier.OPENGRAPH, "other")}
    assert set(weights.FEATURES) <= known, set(weights.FEATURES) - known
    assert set(weights.WEIGHTS) == set(weights.BIAS) == set(classifier.TYPES)
    for row in (weights.MEANS, weights.SDS, *weights.WEIGHTS.values()):
        assert len(row) == len(weights.FEATURES)


@pytest.mark.parametrize(
    ("head", "body", "declared"),
    [
        ("<meta property='og:type' content='article'>", "", True),
        ("<meta property='og:type' content='article:section'>", "", True),
        ("<meta property='og:type' content='website'>", "", False),
        ("", "<div itemscope itemtype='https://schema.org/NewsArticle/'>Story</div>", True),
        ("", "<div itemscope itemtype='https://schema.org/Product'>Chair</div>", False),
    ],
)
def test_a_page_declares_an_article_by_its_opengraph_type_or_microdata(
    head: str, body: str, declared: bool
) -> None:
    doc = lxml.html.document_fromstring(f"<html><head>{head}</head><body>{body}</body></html>")
    assert classifier.declares_article(doc) is declared


@pytest.mark.parametrize("fmt", ["markdown", "text", "links", "html"])
def test_a_reading_says_the_type_of_the_page_as_it_was_before_the_reading_pruned_it(
    fmt: str,
) -> None:
    """The reading and `pageType` share one parse: the type is read before the main content is
    cut out of it, so it is the type of the whole page, in every format."""
    for name in ("kinds/news.html", "kinds/forum.html", "kinds/product.html", "kinds/docs.html"):
        html = read(name)
        for only_main in (True, False):
            content, _, kind = read_typed(html, "http://x.test/", fmt, only_main)
            assert kind == page_type(html), (name, fmt, only_main)
            assert content or fmt == "links"  # a main content may hold no link
