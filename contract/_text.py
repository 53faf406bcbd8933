"""Text made valid Unicode where it enters taskplate: a lone UTF-16 surrogate (U+D800–U+DFFF,
which JavaScript strings and JSON's `\\ud800` escapes can hold but no UTF-8 encoder takes) is
replaced by U+FFFD, so nothing downstream (the store, an artifact, an answer on the wire) meets
a string it cannot encode."""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
# Python joins a surrogate pair read from JSON into one code point: any left is unpaired.
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (the same object when there is none)."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def valid_unicode(value: Any) -> Any:
    """A JSON-like value (strings, lists, dicts and their keys) with valid text throughout; the
    same objects where nothing needed replacing, so clean values cost one scan."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list | tuple):
        items = [valid_unicode(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        pairs = [(valid_unicode(k), valid_unicode(v)) for k, v in value.items()]
        if all(
            k is old_k and v is old_v
            for (k, v), (old_k, old_v) in zip(pairs, value.items(), strict=True)
        ):
            return value
        return dict(pairs)
    return value
