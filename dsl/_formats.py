"""The JSON Schema formats taskplate enforces (`uri`), one definition for the checker, run
inputs and action arguments. Pure: reads a text, says yes or no; knows no page or network.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import jsonschema

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
# Whitespace, control characters and lone surrogates never stand in a URL (RFC 3986).
_NOT_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f\ud800-\udfff\s]")
_NEEDS_HOST = frozenset({"http", "https", "ws", "wss", "ftp"})


def is_uri(text: str) -> bool:
    """An absolute URL: a scheme, no whitespace or control character, and for http(s), ws(s)
    and ftp a host and a port that exists (http://, http://h:99999/, http://[::1/ are not)."""
    if _NOT_IN_URL.search(text):
        return False
    scheme, colon, _ = text.partition(":")
    if not colon or not _SCHEME.fullmatch(scheme):
        return False
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 -- raises ValueError for a port out of range
    except ValueError:  # an unclosed [IPv6] host, a port that is no number or out of range
        return False
    return scheme.lower() not in _NEEDS_HOST or bool(parts.hostname)


FORMATS: dict[str, Callable[[str], bool]] = {"uri": is_uri}


def format_checker() -> jsonschema.FormatChecker:
    """jsonschema's format checker with taskplate's `uri` (jsonschema's own needs a package
    taskplate does not install, and without it let every text pass)."""
    import jsonschema

    checker = jsonschema.FormatChecker()
    for name, test in FORMATS.items():
        checker.checks(name)(lambda value, test=test: not isinstance(value, str) or test(value))
    return checker
