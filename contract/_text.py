"""Text made valid Unicode where it enters taskplate: a lone UTF-16 surrogate (U+D800–U+DFFF,
which JavaScript strings and JSON's `\\ud800` escapes can hold but no UTF-8 encoder takes) is
replaced by U+FFFD, so nothing downstream (the store, an artifact, an answer on the wire) meets
a string it cannot encode."""

from __future__ import annotations

import json
import re
from typing import Any

REPLACEMENT = "\ufffd"
# Python joins a surrogate pair read from JSON into one code point: any left is unpaired.
_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # in JSON text: \ud800 read as one


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (the same object when there is none)."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def valid_json(text: str) -> Any:
    """The JSON text read, made valid Unicode. A text with no surrogate in it, raw or escaped
    (the common case, one search of the text), cannot read as a value with one, so the value is
    not walked again: that walk, a dump of the whole value in one C call, held the event loop
    from a worker thread as long as the read itself."""
    value = json.loads(text)
    if _SURROGATE.search(text) is None and _ESCAPED_SURROGATE.search(text) is None:
        return value
    return valid_unicode(value)


def valid_unicode(value: Any) -> Any:
    """A JSON-like value (strings, lists, dicts and their keys) with valid text throughout; the
    same objects where nothing needed replacing, so clean values cost one scan."""
    if isinstance(value, list | dict) and _encodes(value):
        return value  # the common case, checked in C: a page's megabytes in milliseconds
    return _replaced(value)


def _encodes(value: list[Any] | dict[Any, Any]) -> bool:
    """Whether the value is JSON data whose text UTF-8 encodes (so no lone surrogate)."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except (TypeError, ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        return False
    return True


def _replaced(value: Any) -> Any:
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list | tuple):
        items = [_replaced(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        pairs = [(_replaced(k), _replaced(v)) for k, v in value.items()]
        if all(
            k is old_k and v is old_v
            for (k, v), (old_k, old_v) in zip(pairs, value.items(), strict=True)
        ):
            return value
        return dict(pairs)
    return value
