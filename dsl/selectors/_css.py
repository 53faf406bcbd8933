"""CSS selectors checked before a run, as a browser would parse them: cssselect2's parser (on
tinycss2's tokenizer, the CSS Syntax standard's), with where in the text it stopped.

Parses only: whether a pseudo-class exists is the browser's to say (Chromium knows more than
any list, and Playwright's locators add their own, `:has-text()`, `:visible`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from taskplate.contract import lazy_dataclass

# The argument schemas' mark of a CSS selector (stdlib/_schemas.py `css_selector`), and how
# the action reads it: "locator" (Playwright's, which also takes `text=…`, `xpath=…`, `a >> b`)
# or "query" (the page's own querySelector).
SELECTOR_KEY = "x-selector"
# Playwright's selector engines other than CSS, and its chains: not CSS, left to Playwright.
_ENGINES = ("text=", "xpath=", "id=", "data-testid=", "role=", "internal:", "//", "..")


@lazy_dataclass(frozen=True)
class SelectorProblem:
    """Why a selector is not CSS, and where in its text (offsets)."""

    message: str
    start: int
    end: int


def _offset(text: str, token: Any) -> int:
    """The token's offset in `text` (tinycss2 counts lines and columns from 1); the end
    when the parser ran out of text."""
    line, column = getattr(token, "source_line", None), getattr(token, "source_column", None)
    if line is None or column is None:
        return len(text)
    lines = text.split("\n")
    return sum(len(one) + 1 for one in lines[: int(line) - 1]) + int(column) - 1


def _reason(message: str, token: Any) -> str:
    expected = message.split(", got")[0].split(" got ")[0]
    expected = expected[:1].lower() + expected[1:]
    if token is None:
        return f"{expected}, got the end of the selector"
    if getattr(token, "type", None) == "error":
        return f"{expected}: a quoted string is not closed"
    found = token.serialize() if hasattr(token, "serialize") else str(token)
    return f'{expected}, got "{found}"'.replace("unexpected literal token.,", "unexpected")


def selector_problem(text: str, engine: str = "query") -> SelectorProblem | None:
    """Why `text` is not a CSS selector, or None when it is (or is a Playwright locator's
    other syntax, for an argument Playwright reads)."""
    from cssselect2 import parser  # a validate without selectors never loads it

    start = 0
    if engine == "locator":
        if text.startswith("css="):
            start = 4
        elif ">>" in text or text.startswith(_ENGINES):
            return None
    body = text[start:]
    try:
        parsed = list(parser.parse(body))
    except parser.SelectorError as exc:
        token = exc.args[0] if len(exc.args) >= 2 else None
        message = str(exc.args[-1]) if exc.args else ""
        if "pseudo-element" in message:
            return _pseudo_element(text, start)
        at = start + _offset(body, token)
        reason = _reason(message, token)
        return SelectorProblem(f'"{text}" is not a valid CSS selector: {reason}', at, at + 1)
    if any(one.pseudo_element is not None for one in parsed):
        return _pseudo_element(text, start)
    return None


def _pseudo_element(text: str, start: int) -> SelectorProblem:
    """A pseudo-element (`::before`): Chromium takes it, and it matches no element, ever."""
    at = max(start, text.find("::", start))
    return SelectorProblem(
        f'"{text}" never matches an element: a pseudo-element (::) is not one',
        at,
        at + 2,
    )


def _resolved(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        found = root.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        return found if isinstance(found, dict) else {}
    return schema


def selectors_in(
    schema: dict[str, Any], value: Any, root: dict[str, Any] | None = None, at: str = ""
) -> Iterator[tuple[str, str, str]]:
    """(JSON pointer, text, engine) of every string of `value` its schema marks as a CSS
    selector, at any depth (an extract's records' fields too); a pointer may come twice."""
    root = schema if root is None else root
    schema = _resolved(schema, root)
    engine = schema.get(SELECTOR_KEY)
    if isinstance(engine, str) and isinstance(value, str):
        yield at, value, engine
        return
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            if isinstance(sub, dict):
                yield from selectors_in(sub, value, root, at)
    if isinstance(value, dict):
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        for key, item in value.items():
            sub = props.get(key, extra)
            if isinstance(sub, dict):
                escaped = str(key).replace("~", "~0").replace("/", "~1")
                yield from selectors_in(sub, item, root, f"{at}/{escaped}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            yield from selectors_in(schema["items"], item, root, f"{at}/{i}")
