"""Small pages cut into the content engine's blocks, for the tests of its pure functions."""

from __future__ import annotations

from typing import Any

import lxml.html

from taskplate.stdlib.content import _blocks as blocks


def parsed_page(body: str) -> tuple[Any, blocks.PageBlocks]:
    """The page (titled "T") around `body`, and its body's blocks."""
    doc = lxml.html.document_fromstring(
        f"<html><head><title>T</title></head><body>{body}</body></html>"
    )
    return doc, blocks.blocks(doc.find("body"))


def parsed(body: str) -> list[blocks.Block]:
    """The blocks of a page around `body`."""
    return parsed_page(body)[1]


def kept_text(page_blocks: list[blocks.Block], kept: list[bool]) -> str:
    """The words of the kept blocks, in order."""
    return " ".join(" ".join(b.words) for b, k in zip(page_blocks, kept, strict=True) if k)
