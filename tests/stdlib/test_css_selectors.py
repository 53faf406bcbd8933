"""`dsl validate`'s css-selector rule (cssselect2's parser) against real Chromium's
querySelectorAll: what the one refuses, the other does, but for the differences named here."""

from __future__ import annotations

import pytest

from taskplate.dsl import selector_problem
from taskplate.stdlib._context import ActionContext

pytestmark = pytest.mark.anyio

BOTH_TAKE = [
    ".card",
    "div > p",
    "a[href^='http']",
    "[data-x=y i]",
    "[data-id='1' I]",
    ":has(> img)",
    "div:has(> img)",
    ":is(h1, h2)",
    ":where(.a,.b) p",
    ":not(.a, .b)",
    "li:nth-child(2n+1 of .x)",
    "li:nth-child(odd)",
    ":nth-child(2n + 1)",
    ":hover",
    ":focus-visible",
    ":-webkit-autofill",
    ":checked",
    "a:visited",
    ":modal",
    ":state(x)",
    "*|p",
    ":scope > li",
    "a[href]:not([href=''])",
    "p:lang(en)",
    ":dir(ltr)",
    ":root",
    "div:empty",
    "p:nth-last-child(-n+3)",
    ".a\\:b",
    "p ~ ul",
    "p + ul",
    "img[alt]:not(:is(.x))",
    "x-foo",
    "a b\n  c",
    "button:not(.x",
]
BOTH_REFUSE = [
    ".card[",
    "div >",
    "> div",
    "a,,b",
    "#1a",
    ".a..b",
    "||",
    "a,",
    ",a",
    " ",
    "a:not(",
    "p ~",
    "[=x]",
    "ns|p",
]
# Chromium refuses what only a selector engine knows (a pseudo-class it lacks, :has() nested
# or empty): left to the run, which says so. And an unclosed
# string, which Chromium closes at the end, is refused before the run: a mistake all the same.
ONLY_THE_PARSER_TAKES = ["div:unknown", ":has(:has(a))", "div:has()", "p:-moz-any(a)"]
# Pseudo-elements too: Chromium takes them, and they match no element, ever.
ONLY_CHROMIUM_TAKES = [
    "[a='x",
    "p::before",
    "input::placeholder",
    "::-webkit-scrollbar",
    "::part(x)",
    "::slotted(p)",
]


async def test_the_parser_takes_what_chromium_takes(ctx: ActionContext) -> None:
    page = await ctx.page()
    takes = "s => { try { document.querySelectorAll(s); return true } catch { return false } }"
    for text in BOTH_TAKE + BOTH_REFUSE + ONLY_THE_PARSER_TAKES + ONLY_CHROMIUM_TAKES:
        chromium = await page.evaluate(takes, text)
        parser = selector_problem(text) is None
        assert chromium is (text in BOTH_TAKE + ONLY_CHROMIUM_TAKES), text
        assert parser is (text in BOTH_TAKE + ONLY_THE_PARSER_TAKES), text


def test_playwright_selectors_are_left_to_playwright_where_it_reads_them() -> None:
    for text in ["button:has-text('Buy') >> nth=0", "text=Sign in", "//button", "div:visible"]:
        assert selector_problem(text, "locator") is None, text
    assert selector_problem("text=Sign in", "query") is not None
    problem = selector_problem("css=.card[", "locator")
    assert problem is not None and (problem.start, problem.end) == (10, 11)
    pseudo = selector_problem("li.card::after")
    assert pseudo is not None and (pseudo.start, pseudo.end) == (7, 9)
    assert (
        pseudo.message
        == '"li.card::after" never matches an element: a pseudo-element (::) is not one'
    )
