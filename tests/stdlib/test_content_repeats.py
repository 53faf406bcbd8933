"""A text the answer says again (_items.said_again): a second layout's copy, a carousel's clones,
a reply's preview of the post it answers are read once; an article's own repeated line, code and
a table's values stay, and on documentation a guide's steps and their headings. Pure functions
of small pages, and the shipped rules on whole ones."""

from __future__ import annotations

import lxml.html

from taskplate.stdlib.content import _items as items
from taskplate.stdlib.content._markdown import render, to_markdown
from taskplate.stdlib.content._selection import DEFAULT, main_region
from tests.stdlib.content_pages import kept_text
from tests.stdlib.content_pages import parsed_page as parsed

SECTION = (
    "<h2>Plans for every team</h2><p>Start free and move to a paid plan when your team grows "
    "past ten people.</p>"
)


def said_again(page: str, least: int = 3, apart: bool = True, steps: bool = False) -> str:
    _, page_blocks = parsed(page)
    kept = [True] * len(page_blocks)
    items.said_again(page_blocks, kept, least, apart, steps)
    return kept_text(page_blocks, kept)


def test_a_second_layouts_copy_is_read_once() -> None:
    page = f"<main><div class='desktop'>{SECTION}</div><div class='mobile'>{SECTION}</div></main>"
    text = said_again(page)
    assert text.count("plans for every team") == 1 and text.count("start free") == 1


def test_an_articles_own_repeated_line_stays_unless_apart_is_off() -> None:
    day = "<h3>Day {n}</h3><p>Eat every two or three hours.</p><p>Drink water before bed.</p>"
    page = f"<article>{day.format(n=1)}{day.format(n=2)}</article>"
    assert said_again(page).count("eat every two or three hours") == 2
    assert said_again(page, apart=False).count("eat every two or three hours") == 1


def test_code_a_tables_values_and_short_lines_stay() -> None:
    code = "<pre><code>result = client.send(message)</code></pre>"
    cells = "<table><tr><td>No stats registered</td></tr><tr><td>No stats registered</td></tr>"
    short = "<div><p>In stock</p></div><div><p>In stock</p></div>"
    text = said_again(f"<main><div>{code}</div><div>{code}</div>{cells}</table>{short}</main>")
    assert text.count("result client send message") == 2
    assert text.count("no stats registered") == 2 and text.count("in stock") == 2


def test_none_keeps_every_copy() -> None:
    page = f"<main><div>{SECTION}</div><div>{SECTION}</div></main>"
    _, page_blocks = parsed(page)
    kept = [True] * len(page_blocks)
    items.said_again(page_blocks, kept, None, True)
    assert all(kept)


def test_the_shipped_rules_read_a_page_laid_out_twice_once() -> None:
    """A service page that carries its sections once for wide screens and once for phones (the
    stylesheet shows one): the answer says each once."""
    sections = "".join(
        f"<section><h2>{name}</h2><p>{name} for teams that ship every week, with reviews, "
        f"history and a plan that grows with the work you do each day.</p></section>"
        for name in ("Boards", "Docs", "Forms", "Goals")
    )
    page = (
        "<html><head><title>Work</title></head><body><nav><a href='/'>Home</a></nav><main>"
        f"<h1>One place for your work</h1><div class='wide'>{sections}</div>"
        f"<div class='phone'>{sections}</div></main><footer><p>Privacy and terms</p></footer>"
        "</body></html>"
    )
    text = to_markdown(page, "https://work.test/")[0]
    for name in ("Boards", "Docs", "Forms", "Goals"):
        assert text.count(f"{name} for teams that ship every week") == 1, text


def test_a_guides_repeated_steps_stay_with_steps_and_its_carousel_goes() -> None:
    step = (
        "<div class='step'><h4>Reset the view</h4><p>Part {n}: loft the curves of the shell and "
        "join them.</p><ol><li><p>On the View menu, click Zoom Extents All.</p></li></ol></div>"
    )
    slide = "<div class='slide'><p>Prompt to code anything you can imagine</p></div>"
    page = f"<main>{step.format(n=1)}{slide}{step.format(n=2)}{slide}</main>"
    guide = said_again(page, steps=True)
    assert guide.count("reset the view") == 2 and guide.count("zoom extents all") == 2
    assert guide.count("prompt to code") == 1  # not a step: a carousel's clone
    assert said_again(page).count("zoom extents all") == 1


def test_the_shipped_rules_keep_a_guides_repeated_steps_on_documentation_only() -> None:
    step = (
        "<div class='step'><h4>Reset the view</h4><p>Part {n}: loft the curves of the shell, cap "
        "its holes, and join the surfaces into one solid before the next part.</p><ol><li>On "
        "the View menu, click Zoom Extents All.</li></ol></div>"
    )
    body = "".join(step.format(n=n) for n in range(3))
    page = f"<html><body><main><h1>Tutorial: headphones</h1>{body}</main></body></html>"

    def read(kind: str) -> str:
        found, _ = main_region(lxml.html.document_fromstring(page), DEFAULT, kind)
        return render(found) if found is not None else ""

    assert read("documentation").count("Zoom Extents All") == 3
    assert read("article").count("Zoom Extents All") == 1
