"""How inline text is marked in Markdown so that CommonMark reads it as the page shows it:
emphasis around words, a link's text and its address (_markdown's writer uses them).
"""

from __future__ import annotations

import re
from typing import Any

WORDS = re.compile(r"\w(?:.*\w)?", re.S)  # from the first word character to the last
_BRACKETS = re.compile(r"([\[\]])")


def emphasis(marker: str, text: str, spaced: bool) -> str:
    """Text in emphasis markers CommonMark reads as emphasis whatever stands beside them: the
    punctuation at its start outside, and at its end too unless a space follows (`**7.3/**10`
    would show its asterisks, `**7.3**/10` does not; `**Note:** x` stays); no markers around
    punctuation alone (`Audience**:**` is `Audience:`)."""
    words = WORDS.search(text)
    if words is None:
        return text
    end = len(text) if spaced else words.end()
    return f"{text[: words.start()]}{marker}{text[words.start() : end]}{marker}{text[end:]}"


def link_text(text: str) -> str:
    """A text of a link with its brackets escaped: `(Riverside Press], 1873)` would end the
    link at its `]`, and the rest show as `](https://…)`."""
    return _BRACKETS.sub(r"\\\1", text)


def destination(url: str) -> str:
    """A link's or an image's address as Markdown reads it whole: spaces (a srcset written in
    `src`) encoded, and parentheses when they do not pair (`Load_balancing_(computing`), which
    would end the address early or run it on into the text."""
    url = url.replace(" ", "%20")
    depth = 0
    for char in url:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            break
    return url if depth == 0 else url.replace("(", "%28").replace(")", "%29")


def only_link(code: Any) -> Any | None:
    """The link that is all of an inline code's text (`<code><a>+ipc</a></code>`), or None."""
    links = [a for a in code.iter("a") if a.get("href")]
    whole = len(links) == 1 and links[0].text_content().strip() == code.text_content().strip()
    return links[0] if whole else None


def edge(space: str) -> str:
    """The whitespace at an inline element's edge, as it reads: a line break, a space or none."""
    return "\n" if "\n" in space else " " if space else ""
