"""A product's description from the page's structured data (schema.org Product in JSON-LD), for
pages that hide it in a tab the main content leaves out. Pure functions of parsed JSON and lxml."""

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


def description(scripts: list[str]) -> str:
    """The longest description of a schema.org Product (or ProductGroup) in the scripts."""
    found = ""
    for text in scripts:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        for thing in _things(data):
            kinds = thing.get("@type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if not {"Product", "ProductGroup"} & {str(k) for k in kinds}:
                continue
            said = thing.get("description")
            if isinstance(said, str) and len(said) > len(found):
                found = " ".join(said.split())
    return found


def add_description(main: Any, scripts: list[str]) -> None:
    """Appends the product's description as a paragraph when the answer lacks most of it."""
    if not scripts:
        return
    text = description(scripts)
    wanted = _WORD.findall(text.lower())
    if len(wanted) < MIN_WORDS:
        return
    have = set(_WORD.findall(main.text_content().lower()))
    if sum(w in have for w in wanted) >= MISSING * len(wanted):
        return
    if "<" in text:  # a description written in HTML: its text
        with contextlib.suppress(ValueError, etree.ParserError):
            parsed: Any = lxml.html.fromstring(text)
            text = " ".join(parsed.text_content().split())
    paragraph = etree.SubElement(main, "p")
    paragraph.text = text
