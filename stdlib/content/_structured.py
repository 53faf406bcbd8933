"""A product's description and a thread's posts from the page's structured data (schema.org in
JSON-LD), for pages that hide them from the main content. Pure functions of parsed JSON and lxml."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import lxml.html
from lxml import etree

_WORD = re.compile(r"\w+")
MISSING = 0.5  # the description is added when the answer holds less than this share of its words
MIN_WORDS = 10  # a shorter description is a tag line, not the product's text


def _things(value: Any) -> Iterator[dict[str, Any]]:
    """Every object of a JSON-LD value: the top, @graph members and nested items."""
    if isinstance(value, list):
        for item in value:
            yield from _things(item)
    elif isinstance(value, dict):
        yield value
        for key in ("@graph", "mainEntity", "itemOffered"):
            if key in value:
                yield from _things(value[key])


_PRODUCTS = frozenset({"Product", "ProductGroup"})  # a product's kinds


def description(scripts: list[str]) -> str:
    """The longest description of a schema.org Product (or ProductGroup) in the scripts."""
    found = ""
    for thing in _of_kinds(scripts, _PRODUCTS):
        said = thing.get("description")
        if isinstance(said, str) and len(said) > len(found):
            found = " ".join(said.split())
    return found


def _of_kinds(scripts: list[str], wanted: frozenset[str]) -> Iterator[dict[str, Any]]:
    """The things of the scripts' JSON-LD whose @type is one of `wanted` (a script that is not
    JSON skipped)."""
    for text in scripts:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        for thing in _things(data):
            kinds = thing.get("@type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if wanted & {str(k) for k in kinds}:
                yield thing


def add_description(main: Any, scripts: list[str]) -> None:
    """Appends the product's description as a paragraph when the answer lacks most of it."""
    if not scripts:
        return
    text = description(scripts)
    if len(_WORD.findall(text)) >= MIN_WORDS and _lacks(main, [text]):
        _append(main, text)


# A thread's kinds of post, and where a post holds its replies.
_POSTS = frozenset({"DiscussionForumPosting", "SocialMediaPosting", "Question"})
_REPLIES = ("comment", "suggestedAnswer", "acceptedAnswer")


def _replies(thing: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A post and its replies (comments, answers), in the order the data gives them."""
    yield thing
    for key in _REPLIES:
        value = thing.get(key)
        for reply in value if isinstance(value, list) else [value]:
            if isinstance(reply, dict):
                yield from _replies(reply)


def posts(scripts: list[str]) -> list[str]:
    """The texts of a thread's posts and replies in the scripts (schema.org
    DiscussionForumPosting, SocialMediaPosting or Question, their comments and answers)."""
    found: list[str] = []
    for thing in _of_kinds(scripts, _POSTS):
        for post in _replies(thing):
            said = post.get("text") or post.get("articleBody")
            if isinstance(said, str) and said.strip() and said not in found:
                found.append(said)
    return found


def add_posts(main: Any, scripts: list[str]) -> None:
    """Appends a thread's posts, each as a paragraph, when the answer lacks most of their
    words (a thread whose posts the page draws by script, or in a frame the vote missed); only
    the posts it lacks most of."""
    if not scripts:
        return
    texts = posts(scripts)
    if sum(len(_WORD.findall(t)) for t in texts) < MIN_WORDS or not _lacks(main, texts):
        return
    for text in texts:
        if _lacks(main, [text]):
            _append(main, text)


def _lacks(main: Any, texts: list[str]) -> bool:
    """Whether the answer holds fewer than MISSING of the texts' words."""
    wanted = [w for t in texts for w in _WORD.findall(t.lower())]
    have = set(_WORD.findall(main.text_content().lower()))
    return sum(w in have for w in wanted) < MISSING * len(wanted)


def _append(main: Any, text: str) -> None:
    """The text appended to the answer as a paragraph (a text written in HTML: its text)."""
    if "<" in text:
        with contextlib.suppress(ValueError, etree.ParserError):
            parsed: Any = lxml.html.fromstring(text)
            text = " ".join(parsed.text_content().split())
    paragraph = etree.SubElement(main, "p")
    paragraph.text = text
