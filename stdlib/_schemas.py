"""Schema fragments that several actions share: element targets, timeouts, result fields.

Plain dicts only; each action's module composes them into its own schemas.
"""

from __future__ import annotations

from typing import Any

from taskplate.dsl import SELECTOR_KEY

from .content import PAGE_TYPES

TIMEOUT_MS = {
    "type": "integer",
    "minimum": 1,
    "maximum": 300_000,
    "description": "Give up after this many milliseconds.",
}

# The largest index into a page's elements or options a caller may give (a bound for the
# schema, far past any page): beyond it a number is refused before any work starts.
MAX_INDEX = 1_000_000


def css_selector(description: str = "", read_by: str = "locator") -> dict[str, Any]:
    """A CSS selector argument, marked for `dsl validate` (the css-selector rule): `read_by`
    "locator" (Playwright's, which takes its own engines too) or "query" (querySelector). The
    mark never reaches tools/list; a description only where it says more than the name."""
    described = {"description": description} if description else {}
    return {"type": "string", "minLength": 1, **described, SELECTOR_KEY: read_by}


TARGET_PROPS: dict[str, Any] = {
    "selector": css_selector("A CSS selector."),
    "xpath": {"type": "string", "minLength": 1, "description": "An XPath expression."},
    "text": {"type": "string", "minLength": 1, "description": "Visible text of the element."},
    "ref": {"type": "string", "pattern": "^e[0-9]+$", "description": "A ref from `snapshot`."},
}

TARGET_REQUIRED = {
    "anyOf": [{"required": [name]} for name in TARGET_PROPS],
    "x-message": "needs an element target: one of selector, xpath, text or ref",
}

STRATEGY = {
    "enum": ["input", "dom"],
    "default": "input",
    "description": "input: real input events (trusted); dom: element.click()/value set.",
}


def args(
    properties: dict[str, Any], required: list[str] | None = None, *, target: bool = False
) -> dict[str, Any]:
    """An argument schema: a closed map; with `target`, one element target is required."""
    props = {**(TARGET_PROPS if target else {}), **properties}
    schema: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": props}
    if required:
        schema["required"] = required
    if target:
        schema["allOf"] = [TARGET_REQUIRED]
    return schema


def result(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {**properties, "warnings": {"type": "array", "items": {"type": "string"}}},
    }
    schema["required"] = required if required is not None else list(properties)
    return schema


STRING = {"type": "string"}
# An absolute URL (dsl/_formats.py is_uri): refused as INVALID_PARAMETER before any request.
URL = {"type": "string", "minLength": 1, "format": "uri", "description": "Absolute http(s) URL."}
NULLABLE_STRING = {"type": ["string", "null"]}
INTEGER = {"type": "integer"}
BOOLEAN = {"type": "boolean"}
# What kind of page was read: `pageType` (stdlib/content/_page_type.py).
PAGE_TYPE = {"enum": list(PAGE_TYPES)}

# What to read of a page's content, one definition for get_page_content, fetch and read_page.
PAGE_CONTENT: dict[str, Any] = {
    "format": {"enum": ["markdown", "html", "text", "links"], "default": "markdown"},
    "onlyMainContent": {"type": "boolean", "default": True},
    "maxBytes": {"type": "integer", "minimum": 1, "maximum": 50_000_000},
}
