"""What elements are named (stdlib/content/_names.py): the quick test a clean-up makes before its
pass over every element, which must never pass over a page the pass would change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskplate.stdlib.content import _boilerplate, _layers, _names, _threads
from taskplate.stdlib.content._boilerplate import (
    drop_named_boilerplate,
    drop_post_comments,
    drop_reviews,
    drop_signatures,
)
from taskplate.stdlib.content._layers import drop_named_modals, drop_screen_reader_text
from taskplate.stdlib.content._names import may_be_named
from taskplate.stdlib.content._threads import drop_author_boxes

SENTENCE = "The council met on Tuesday to decide how the new bridge over the river will be paid for"


def body_of(html: str) -> Any:
    return lxml.html.document_fromstring(f"<html><body>{html}</body></html>").find("body")


def test_a_page_named_with_none_of_the_words_is_passed_over_and_any_case_is_found() -> None:
    page = body_of("<div class='content'><p id='Intro'>Hi</p></div>")
    assert not may_be_named(page, {"signature", "popup"})
    named = body_of("<div class='msg'><div id='PostSignature'>rig</div></div>")
    assert may_be_named(named, {"signature"})
    assert may_be_named(body_of("<div class='SR-ONLY'>x</div>"), {"sr-only"})


def test_each_page_is_read_for_its_own_names_even_while_the_last_is_alive() -> None:
    first = body_of(f"<p>{SENTENCE}</p>")
    drop_signatures(first)  # its names read: none of a signature
    second = body_of(f"<p>{SENTENCE}</p><div class='signature'>My rig</div>")
    drop_signatures(second)
    assert "My rig" not in second.text_content()
    assert first.getparent() is not None  # the first page still alive


def test_clean_ups_in_turn_on_one_page_still_find_what_they_drop() -> None:
    page = body_of(
        f"<p>{SENTENCE}.</p><div class='related'>Other stories</div>"
        f"<p>{SENTENCE} again.</p><div class='postsig'>My rig</div>"
    )
    drop_named_boilerplate(page)
    drop_signatures(page)
    text = page.text_content()
    assert "Other stories" not in text and "My rig" not in text and "again" in text


CLEANUPS = [
    drop_named_boilerplate,
    drop_post_comments,
    drop_reviews,
    drop_signatures,
    drop_named_modals,
    drop_screen_reader_text,
    drop_author_boxes,
]
# Class and id words: the clean-ups' own words in several cases and joined to others, and words
# that are none of theirs.
WORDS = st.sampled_from(
    ["related", "Related", "RELATED", "moreStories", "latest-news", "comment", "comments",
     "post", "answer", "Question", "review", "reviews", "signature", "postSig", "modal",
     "Popup", "sr-only", "visually-hidden", "SR-only", "content", "main", "card", "x1",
     "user-info", "messageUserDetails", "AUTHOR", "stats", ""]
)  # fmt: skip
NAMES = st.lists(WORDS, max_size=3).map(" ".join)


@st.composite
def pages(draw: st.DrawFn) -> str:
    """A small page of nested named blocks, each with a sentence of its own."""

    def block(depth: int) -> str:
        tag = draw(st.sampled_from(["div", "section", "span", "p", "article", "h1"]))
        cls, ident = draw(NAMES), draw(NAMES)
        inner = "".join(
            block(depth + 1) for _ in range(draw(st.integers(0, 2 if depth < 3 else 0)))
        )
        return f"<{tag} class='{cls}' id='{ident}'>{SENTENCE} {depth}. {inner}</{tag}>"

    return "".join(block(0) for _ in range(draw(st.integers(1, 4))))


@pytest.mark.parametrize("cleanup", CLEANUPS, ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None)
@given(page=pages())
def test_the_quick_test_never_passes_over_a_page_the_clean_up_would_change(
    cleanup: Callable[[Any], None], page: str
) -> None:
    quick = body_of(page)
    cleanup(quick)
    with pytest.MonkeyPatch.context() as patched:  # the pass over every element, always made
        for module in (_boilerplate, _layers, _threads):
            patched.setattr(module, "may_be_named", lambda body, words: True)
        full = body_of(page)
        cleanup(full)
    assert lxml.html.tostring(quick) == lxml.html.tostring(full)
    assert _names.may_be_named is may_be_named
