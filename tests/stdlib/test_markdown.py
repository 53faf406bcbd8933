"""HTML to Markdown and text: the structure of the main content survives, and text keeps every
block on lines of its own. Pure functions of HTML; the pages themselves are read over Chromium in
test_page_actions.py."""

from __future__ import annotations

import re

import lxml.html
import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from taskplate.stdlib.content import needs_script
from taskplate.stdlib.content._markdown import to_markdown, to_text
from tests.fixtures.server import SITE
from tests.fuzzing import fuzz_settings

SENTENCE = "The council met on Tuesday to decide how the new bridge over the river will be paid for"


def shown(markdown: str) -> str:
    """What a reader of the Markdown sees: CommonMark's rendering, as text."""
    return str(lxml.html.fromstring(f"<div>{MarkdownIt().render(markdown)}</div>").text_content())


def whole(body: str) -> str:
    markdown, is_main = to_markdown(f"<html><body>{body}</body></html>", "http://x/", False)
    assert is_main is False
    return markdown


def test_headings_paragraphs_and_inline_markup() -> None:
    markdown = whole(
        "<h1>Bridge</h1><p>Paid by <b>tolls</b> and <em>grants</em>, see <code>budget.csv</code>.</p>"
        "<h3>Costs</h3><p>Line one<br>line two</p>"
    )
    assert markdown == (
        "# Bridge\n\nPaid by **tolls** and *grants*, see `budget.csv`.\n\n### Costs\n\n"
        "Line one\nline two\n"
    )


def test_a_heading_with_a_line_break_stays_one_line_and_its_link_whole() -> None:
    markdown = whole('<h3><a href="/kotlin">Kotlin: <br> A modern language</a></h3>')
    assert markdown == "### [Kotlin: A modern language](http://x/kotlin)\n"


def test_lists_keep_their_kind_order_and_nesting() -> None:
    markdown = whole(
        "<ol><li>Open a tab</li><li>Read it<ul><li>fields</li><li>links</li></ul></li></ol>"
        "<ul><li><p>First point</p></li><li>Second point</li></ul>"
    )
    assert "1. Open a tab\n2. Read it\n   - fields\n   - links" in markdown
    assert "- First point\n- Second point" in markdown


def test_data_tables_become_markdown_tables_and_layout_tables_do_not() -> None:
    markdown = whole(
        "<table><tr><th>Window</th><th>Pages | s</th></tr><tr><td>1</td><td>4.1</td></tr></table>"
        f"<table><tr><td><p>{SENTENCE}.</p></td><td><p>Second column.</p></td></tr></table>"
    )
    assert "| Window | Pages \\| s |\n| --- | --- |\n| 1 | 4.1 |" in markdown
    assert f"\n\n{SENTENCE}.\n\nSecond column.\n" in markdown


def test_code_blocks_are_fenced_verbatim_with_their_language() -> None:
    markdown = whole(
        '<pre><code class="language-python">def f(x):\n    return x * 2\n</code></pre>'
        "<pre>a ``` fence inside</pre>"
    )
    assert "```python\ndef f(x):\n    return x * 2\n```" in markdown
    assert "````\na ``` fence inside\n````" in markdown


def test_a_highlighted_code_block_in_the_main_content_keeps_its_spaces() -> None:
    code = (
        '<pre><span class="kn">from</span><span class="w"> </span><span class="nn">db</span>'
        '<span class="w"> </span><span class="kn">import</span> <span class="n">models</span></pre>'
    )
    page = f"<html><body><main><h1>Models</h1><p>{SENTENCE}.</p>{code}<p>{SENTENCE}.</p></main>"
    markdown, is_main = to_markdown(f"{page}</body></html>", "http://x/")
    assert is_main and "```\nfrom db import models\n```" in markdown


def test_code_drawn_a_line_an_element_keeps_its_lines() -> None:
    """A highlighter's lines as `<span class="line">` or `<div>`s with no newline between
    them (the page's styles set them on lines), and `<br>`s, are lines; where the page has
    its own newline between them there is still one, never a blank line."""
    spans = whole(
        '<pre><code><span class="line"><span>import</span> x</span>'
        '<span class="line">print(x)</span></code></pre>'
    )
    assert "```\nimport x\nprint(x)\n```" in spans
    divs = whole('<pre><div>{</div><div>  "id": 7</div><div>}</div></pre>')
    assert '```\n{\n  "id": 7\n}\n```' in divs
    newlines = whole('<pre><span class="line">a = 1</span>\n<span class="line">b = 2</span></pre>')
    assert "```\na = 1\nb = 2\n```" in newlines
    breaks = whole("<pre>cd app<br>make</pre>")
    assert "```\ncd app\nmake\n```" in breaks


def test_a_code_blocks_line_numbers_are_left_out_and_its_numbers_stay() -> None:
    """A gutter drawn in the block (digits alone, set against each line's code, counting on by
    one) is the page's margin: the code reads as "Copy" gives it. Numbers of the code itself
    stay: a list of them, numbers that do not count on, a session's output lines."""
    gutter = "".join(
        f'<div><span class="n">{n}</span><div>{line}\n</div></div>'
        for n, line in enumerate(["&lt;?php", "", "require_once 'a.php';"], start=1)
    )
    assert "```\n<?php\n\nrequire_once 'a.php';\n```" in whole(f"<pre>{gutter}</pre>")
    inline = whole('<pre><span class="ln">9</span>x = 1\n<span class="ln">10</span>y = 2</pre>')
    assert "```\nx = 1\ny = 2\n```" in inline
    values = whole("<pre>x = [<span>1</span>, <span>2</span>, <span>3</span>]</pre>")
    assert "x = [1, 2, 3]" in values
    uneven = whole(
        "<pre><div><span>3</span><span>a</span></div><div><span>7</span><span>b</span></div></pre>"
    )
    assert "```\n3a\n7b\n```" in uneven
    output = whole("<pre>&gt;&gt;&gt; list(range(2))\n<span>0</span>\n<span>1</span>\n</pre>")
    assert "```\n>>> list(range(2))\n0\n1\n```" in output
    sections = whole(
        '<pre><a href="#s2">2</a>. Terms\nA line.\n<a href="#s3">3</a>. Storage\n</pre>'
    )
    assert "```\n2. Terms\nA line.\n3. Storage\n```" in sections


def test_links_and_images_are_absolute_and_links_inside_lists_stay() -> None:
    markdown = whole(
        '<p>See the <a href="/docs/window.html">window reference</a>.</p>'
        '<ul><li><a href="a.html">Alpha</a></li></ul><img src="/chart.png" alt="Chart">'
        '<a href="javascript:void(0)">Menu</a>'
    )
    assert "[window reference](http://x/docs/window.html)" in markdown
    assert "- [Alpha](http://x/a.html)" in markdown
    assert "![Chart](http://x/chart.png)" in markdown
    assert "Menu" in markdown and "javascript:" not in markdown


def test_blockquotes_are_quoted() -> None:
    assert "> Said once.\n>\n> Said twice." in whole(
        "<blockquote><p>Said once.</p><p>Said twice.</p></blockquote>"
    )


def test_text_puts_every_block_on_lines_of_its_own() -> None:
    text, _ = to_text(
        "<html><body><h1>Welcome back</h1><p>X</p><ul><li>one</li><li>two</li></ul>"
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"
        "<div>Inline <b>bold</b> stays</div></body></html>",
        "http://x/",
        False,
    )
    assert text == "Welcome back\nX\none\ntwo\na b\nc d\nInline bold stays\n"


def test_main_content_keeps_structure_and_drops_the_page_around_it() -> None:
    paragraphs = "".join(f"<p>Part {n}: {SENTENCE}.</p>" for n in range(6))
    page = (
        '<nav><a href="/">Home</a> <a href="/news">News</a></nav>'
        f"<article><h1>Bridge tolls</h1>{paragraphs}<h2>Costs</h2>"
        "<table><tr><th>Year</th><th>Cost</th></tr><tr><td>2026</td><td>4 m</td></tr></table>"
        f"<p>{SENTENCE}, and the <a href='/plan.html'>full plan</a> says how.</p>"
        "<ul><li>Tolls for lorries over the weight limit</li><li>Grants from the region</li></ul>"
        f"<pre><code>total = tolls + grants</code></pre><p>Closing: {SENTENCE}.</p></article>"
        "<footer><p>Copyright 2026 Valley Courier. All rights reserved.</p></footer>"
    )
    markdown, is_main = to_markdown(f"<html><body>{page}</body></html>", "http://x/")
    assert is_main
    for kept in ("## Costs", "| 2026 | 4 m |", "[full plan](http://x/plan.html)",
                 "- Grants from the region", "```\ntotal = tolls + grants\n```", "Part 5:"):  # fmt: skip
        assert kept in markdown, kept
    assert "Home" not in markdown and "Copyright" not in markdown


def test_react_comment_markers_inside_paragraphs_are_read_whole() -> None:
    # React writes <!-- --> between neighbouring text nodes; kept in the tree, trafilatura's
    # voters lose the text after each marker and the paragraphs fell under the 3-of-4 rule.
    html = (SITE / "react-article.html").read_text(encoding="utf-8")
    text, is_main = to_text(html, "http://x/")
    assert is_main
    read = " ".join(text.split())
    plain = re.sub(r"\s+", " ", re.sub(r"<!--.*?-->|<\?.*?>", "", html, flags=re.S))
    for paragraph in re.findall(r"<p>(.*?)</p>", plain)[:-1]:  # the last is the footer
        assert " ".join(paragraph.split()) in read, paragraph
    assert "News desk" not in read and "Copyright" not in read and "processing" not in read


def test_the_space_at_an_inline_elements_edge_stays_outside_its_markers() -> None:
    # `<b>BOOK: </b>By` was `**BOOK:**By`: CommonMark does not close emphasis there, and the
    # text read "BOOK:By", "wordthen", "linkafter": two words made one.
    body = (
        "<p><strong>BOOK: </strong>By Dec 31<strong><br> TRAVEL: </strong>Through July</p>"
        '<p>A <em>word </em>then <a href="/x">link </a>after, x<span> </span>y, <b> bold</b>.</p>'
    )
    assert whole(body) == (
        "**BOOK:** By Dec 31\n**TRAVEL:** Through July\n\n"
        "A *word* then [link](http://x/x) after, x y, **bold**.\n"
    )
    text, _ = to_text(f"<html><body>{body}</body></html>", "http://x/", False)
    assert text == "BOOK: By Dec 31\nTRAVEL: Through July\nA word then link after, x y, bold.\n"


def test_inline_elements_that_abut_are_read_apart_as_the_page_shows_them() -> None:
    # A page sets `<span>amount</span><span>integer</span>` apart by its style; read together
    # they made "amountinteger", a word the page does not show.
    body = (
        '<p><span>amount</span><span>integer</span>, <a href="/b">La Sportiva</a><span>Aragon'
        "</span>, <code><span>set</span><span>Form</span></code>, <span>H</span><span>ello</span>,"
        " <b>96</b><span>.73</span>, 10<sup>th</sup>.</p>"
    )
    assert whole(body) == (
        "amount integer, [La Sportiva](http://x/b) Aragon, `setForm`, Hello, **96**.73, 10th.\n"
    )


def test_emphasis_is_written_so_that_commonmark_reads_it_as_emphasis() -> None:
    # `**7.3/**10` and `Audience**:**` show their asterisks: CommonMark closes no emphasis
    # after punctuation that a letter or digit follows.
    markdown = whole(
        "<p>Audience<b>:</b> all, <b>7.3/</b>10, <em>(aside)</em>then, <b>Note:</b> x, "
        '<b><a href="/w">ways</a></b> go, <b>end.</b></p>'
    )
    assert markdown == (
        "Audience: all, **7.3**/10, (*aside*)then, **Note:** x, **[ways](http://x/w)** go,"
        " **end**.\n"
    )
    assert "*" not in shown(markdown)


def test_abutting_emphasis_of_one_kind_is_one_emphasis() -> None:
    # `<b>S</b><b>pecific</b>` was `**S****pecific**`, which shows its asterisks.
    markdown = whole(
        "<p><b>S</b><b>pecific</b>: state it, <em>a</em><em>b</em>, <b>one</b> <b>two</b>,"
        " <b><i>x</i></b><b>y</b>.</p>"
    )
    assert markdown == "**Specific**: state it, *ab*, **one** **two**, ***x*y**.\n"
    assert "*" not in shown(markdown)


def test_links_hold_one_line_of_text_so_commonmark_reads_them_as_links() -> None:
    # A product card's link around a list of its photos was `[- ![A](…)\n  - ![B](…)](…)`: the
    # list broke the link, and a reader saw `](https://…)`. A link inside a link (`[[x](u)](u)`)
    # and a link inside inline code (`` `[+ipc](u)` ``) showed their syntax too; an image's
    # address holding spaces (a srcset put in `src`) ended at the first.
    markdown = whole(
        '<ul><li><a href="/p"><ul><li><img src="/a.jpg" alt="Front"></li>'
        '<li><img src="/b.jpg" alt="Back"></li></ul></a><a href="/p">Trail helmet</a></li></ul>'
        '<div><a href="/card"><img src="/i.jpg" alt="Sofa"><h3>Grey sofa</h3>'
        "<p>$99<br>In stock</p></a></div>"
        '<p>Or <a href="/c"><span><a href="/c">couches for sale</a></span></a>, and the flag'
        ' <code><a href="/flags/ipc">+ipc</a></code> or <code>x <a href="/y">y</a></code>.</p>'
        '<p><img src="/s.jpg 1000w, /l.jpg 2000w" alt="Tee"></p>'
    )
    assert "- [![Front](http://x/a.jpg) ![Back](http://x/b.jpg)](http://x/p)" in markdown
    assert "[![Sofa](http://x/i.jpg) Grey sofa $99 In stock](http://x/card)" in markdown
    assert "Or [couches for sale](http://x/c), and the flag" in markdown
    assert "flag [`+ipc`](http://x/flags/ipc) or" in markdown
    assert "or `x y`." in markdown
    assert "![Tee](http://x/s.jpg%201000w,%20/l.jpg%202000w)" in markdown
    seen = shown(markdown)
    assert "](" not in seen and "[" not in seen and "`" not in seen
    assert "Trail helmet" in seen and "Grey sofa $99 In stock" in seen


def test_brackets_in_a_links_text_and_parentheses_in_its_address_keep_the_link_whole() -> None:
    # `[Price list (Riverside Press], 1873)](…)` ended at its `]`; an address whose parentheses
    # do not pair (`Load_balancing_(computing`) ran on into the text after the link.
    markdown = whole(
        '<p><a href="/r/1">Price list (Riverside Press], 1873)</a>, <a href="/w/Load_(computing">'
        'load balancing</a> and <a href="/w/Mips_(bike)">Mips</a>, <a href="/n">[edit]</a>,'
        ' <a href="/i"><img src="/i.png" alt="[logo]"></a>, and [not a link].</p>'
    )
    assert "[Price list (Riverside Press\\], 1873)](http://x/r/1)" in markdown
    assert "[load balancing](http://x/w/Load_%28computing)" in markdown
    assert "[Mips](http://x/w/Mips_(bike))" in markdown
    assert "[\\[edit\\]](http://x/n)" in markdown
    assert "[![\\[logo\\]](http://x/i.png)](http://x/i)" in markdown
    assert "and [not a link]." in markdown
    assert shown(markdown).strip() == (
        "Price list (Riverside Press], 1873), load balancing and Mips, [edit], , and [not a link]."
    )


def test_a_react_pages_streamed_parts_are_read_in_their_places() -> None:
    # React streams a page's late parts after its shell, each in a hidden <div id="S:n"> that
    # an inline script moves into its <template id="B:n">. Read without script (engine http,
    # `fetch`) the parts stayed hidden and were dropped: the page read as its promotion's line.
    html = (SITE / "streamed.html").read_text(encoding="utf-8")
    text, is_main = to_text(html, "http://x/")
    assert is_main
    lines = text.split("\n")  # the heading that is the page's title is the answer's title
    assert [line[:12] for line in lines if line] == ["Every spring", "The measurem", "Fishermen an"]
    assert "Spring sale" not in text and "Copyright" not in text
    # what shows until the part comes goes, as the script takes it away
    page, _ = to_text(html, "http://x/", False)
    assert "Loading" not in page and "Fishermen" in page and "Spring sale" in page
    # a part's placeholder ("P:n") has no fallback: the text after it stays; a boundary's
    # fallback ends at the `<!--/$-->` that closes it, boundaries inside it counted
    page, _ = to_text(
        "<html><body><main><p>Intro.</p><template id='P:5'></template><p>After the place.</p>"
        "<!--/$--><!--$?--><template id='B:7'></template><!--$--><p>Inner wait.</p><!--/$-->"
        "<p>Outer wait.</p><!--/$--><p>After the boundary.</p></main>"
        "<div hidden id='S:5'><p>Part five.</p></div><div hidden id='S:7'><p>Part seven.</p>"
        '</div><script>$RC("B:7","S:7")</script></body></html>',
        "http://x/",
        False,
    )
    read = " ".join(page.split())
    assert read == "Intro. Part five. After the place. Part seven. After the boundary."
    # a part whose place is not on the page stays hidden, as the browser leaves it
    orphan = html.replace('<template id="B:1"></template>', "")
    text, _ = to_text(orphan, "http://x/")
    assert "Every spring" in text and "Fishermen" not in text


_STREAM_PIECES = st.sampled_from(
    [
        '<template id="B:0"></template>',
        '<template id="B:1"></template>',
        '<template id="P:1"></template>',
        '<div hidden id="S:0">',
        '<div hidden id="S:1">',
        '<div hidden id="S:2">',
        "</div>",
        "<!--$?-->",
        "<!--/$-->",
        "<p>Tides at the pier are measured every ten minutes for a month.</p>",
        "<main>",
        "</main>",
        "text",
    ]
)


@pytest.mark.fuzz
@fuzz_settings(150)
@given(st.lists(_STREAM_PIECES, max_size=14))
def test_streamed_parts_in_any_arrangement_read_without_error(pieces: list[str]) -> None:
    # Parts before or inside their own templates, a template inside what shows until another
    # part comes, two parts for one template, a part with none: the page is read, never an
    # error (one such page failed read_page with an internal error).
    html = f"<!-- streamed --><html><body>{''.join(pieces)}</body></html><!--/$-->"
    for only_main in (True, False):
        text, _ = to_text(html, "http://x/", only_main)
        assert "S:" not in text
    doc = lxml.html.document_fromstring(html)
    needs_script(doc, len(html))
