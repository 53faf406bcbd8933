"""Clean-ups that stand down on some kinds of page (`Rules.spared`): on a service page the
testimonials named as reviews are its pitch, and its sections of one class are its sections;
on a product page the customer reviews still go; a thread's replies nested in the question's
<article> are its posts. The shipped rules spare reviews and the split body on service pages and
listings, the split body on products and the nested cards on forums.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import lxml.html

from taskplate.stdlib.content._markdown import read_typed, render
from taskplate.stdlib.content._rules import Rules
from taskplate.stdlib.content._selection import CLEANUPS, DEFAULT, main_region

INTRO = (
    "<h1>Bookkeeping for small firms</h1><p>We keep the books of small firms across the region: "
    "monthly accounts, payroll and tax returns, done by a named accountant who knows your "
    "business and answers the phone when you call with a question about your numbers.</p>"
)
SECTIONS = "".join(
    f"<section><h2>{title}</h2><div class='text-block'><p>{text}</p></div></section>"
    for title, text in (
        (
            "Monthly accounts",
            "Every month we reconcile your bank feeds, chase the missing receipts and send "
            "a short report of what came in, what went out and what is owed to you.",
        ),
        (
            "Payroll",
            "We run the payroll on the day you choose, file the returns to the tax office "
            "and send each employee a payslip they can read without calling you about it.",
        ),
        (
            "Tax returns",
            "Your company and personal returns are prepared early, checked twice and filed "
            "before the deadline, with a plain letter saying what to pay and when to pay it.",
        ),
    )
)
TESTIMONIALS = (
    "<div class='reviews'><h2>What our clients say</h2>"
    "<blockquote><p>They took the whole mess of receipts off my hands in the first week and "
    "I have not missed a single filing deadline since we signed up with them.</p></blockquote>"
    "<blockquote><p>Our payroll used to take two evenings every month; now it simply happens "
    "and every payslip arrives on time, which our staff have noticed and thanked us for.</p>"
    "</blockquote></div>"
)


def page(kind: str, body: str) -> str:
    data = {"@context": "https://schema.org", "@type": kind, "name": "Ledger & Co"}
    return (
        f"<html><head><title>Ledger & Co</title><script type='application/ld+json'>"
        f"{json.dumps(data)}</script></head><body><nav><a href='/'>Home</a></nav>"
        f"<main>{body}</main><footer><p>Ledger & Co, 1 High Street</p></footer></body></html>"
    )


def read(html: str, kind: str, rules: Rules) -> str:
    doc = lxml.html.document_fromstring(html)
    found, _ = main_region(doc, rules, kind)
    return render(found) if found is not None else ""


def test_reviews_go_on_a_product_page_and_stay_where_the_kind_spares_them() -> None:
    rules = replace(DEFAULT, cleanups=("reviews",), spared=(("service", "reviews"),))
    html = page("ProfessionalService", INTRO + SECTIONS + TESTIMONIALS)
    assert "whole mess of receipts" in read(html, "service", rules)
    assert "whole mess of receipts" not in read(html, "product", rules)
    assert "whole mess of receipts" not in read(html, "", rules)  # kind unknown: every clean-up


def test_the_split_body_clean_up_stands_down_where_the_kind_spares_it() -> None:
    """Joined, the sections' paragraphs move into the first part, away from their headings,
    which then head no text and go."""
    rules = replace(DEFAULT, cleanups=("split_body",), spared=())
    html = page("ProfessionalService", INTRO + SECTIONS)
    for kind in ("service", "product"):
        kept = read(html, kind, replace(rules, spared=((kind, "split_body"),)))
        assert kept.index("## Payroll") < kept.index("We run the payroll") < kept.index("## Tax")
    joined = read(html, "article", rules)
    assert "We run the payroll" in joined and "## Payroll" not in joined


def test_the_shipped_rules_keep_a_service_pages_testimonials() -> None:
    html = page("ProfessionalService", INTRO + SECTIONS + TESTIMONIALS)
    text, is_main, kind = read_typed(html, "https://ledger.test/", "markdown", True)
    assert kind == "service" and is_main
    assert "whole mess of receipts" in text and "We run the payroll" in text
    assert "1 High Street" not in text


def test_the_shipped_rules_spare_each_clean_up_only_on_its_kinds(monkeypatch: Any) -> None:
    """A thread's replies nested in the question's <article> are its posts, not a story's
    teasers: the nested cards' clean-up does not run on a page read as a forum, and runs on
    an article; every pair the shipped rules spare names a clean-up they run."""
    ran: list[str] = []
    monkeypatch.setitem(CLEANUPS, "nested_listings", lambda body: ran.append("nested"))
    html = page("DiscussionForumPosting", INTRO + SECTIONS)
    for kind, runs in (("forum", []), ("article", ["nested"]), ("", ["nested"])):
        ran.clear()
        main_region(lxml.html.document_fromstring(html), DEFAULT, kind)
        assert ran == runs, kind
    assert {name for _, name in DEFAULT.spared} <= set(DEFAULT.cleanups)
