"""A code block's text as the page lays it out: the lines a highlighter draws as elements (a
`<span class="line">` or a `<div>` each, with no newline between them) and `<br>`s on lines of
their own, and the line numbers it draws in the block beside each line left out (they are
the page's margin, not the code: "Copy" gives the code without them).
"""

from __future__ import annotations

from typing import Any

from ._names import name_parts

# Elements a code block's lines are drawn in: each on a line of its own. Not _blocks.BLOCK_TAGS:
# a row's cells (td, th) lie side by side, a gutter's number beside its line.
_LINES = frozenset({"div", "p", "li", "tr", "table", "ul", "ol", "section", "pre"})
# ... and words of their class or id names (name_parts: "code-line" is "code" and "line").
_LINE_WORDS = frozenset({"line", "codeline"})


def code_text(pre: Any) -> str:
    """The text of a `<pre>` with a line break at each line element's start and end (one, never
    two where the page has its own newline there), at each `<br>`, and without its gutter of
    line numbers: elements of digits alone, one at the start of every line, set against the
    code after it (no space or newline between: the page's styles set them apart), counting on
    by one; never fewer than two, nor numbers that do not count on (a list in the code), nor
    numbers before some lines only (a section's number in a plain-text document)."""
    text, numbers = _laid_out(pre, set())
    values = [int((e.text or "").strip()) for e in numbers]
    if len(values) < 2 or values != list(range(values[0], values[0] + len(values))):
        return text
    code, _ = _laid_out(pre, set(numbers))
    lines = sum(1 for line in code.split("\n") if line.strip())
    return code if len(values) >= lines else text  # a number for each line: a gutter


def _laid_out(pre: Any, gutter: set[Any]) -> tuple[str, list[Any]]:
    """(the text of `pre` laid out in lines, leaving out `gutter`; the elements that may be
    line numbers)."""
    out: list[str] = []
    numbers: list[Any] = []
    pending = False  # a line ended or started: the next text starts on a new line

    def put(text: str) -> None:
        nonlocal pending
        if not text:
            return
        if pending and out and not out[-1].endswith("\n") and not text.startswith("\n"):
            out.append("\n")
        pending = False
        out.append(text)

    def walk(element: Any) -> None:
        nonlocal pending
        line = element is not pre and _is_line(element)
        if line:
            pending = True
        if element.tag == "br":
            put("\n")
        put(element.text or "")
        for child in element:
            if isinstance(child.tag, str) and child not in gutter:
                if _may_number(child) and (pending or not out or out[-1].endswith("\n")):
                    numbers.append(child)
                walk(child)
            put(child.tail or "")
        if line:
            pending = True

    walk(pre)
    return "".join(out), numbers


def _may_number(element: Any) -> bool:
    """Digits alone, with the code right after them: its tail's text or its next element."""
    if len(element) or not (element.text or "").strip().isdigit():
        return False
    tail = element.tail or ""
    return not tail[:1].isspace() if tail else element.getnext() is not None


def _is_line(element: Any) -> bool:
    return element.tag in _LINES or not _LINE_WORDS.isdisjoint(name_parts(element))
