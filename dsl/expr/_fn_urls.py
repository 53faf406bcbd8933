"""URL functions of the expression language: host, joining, a crawl key, glob patterns."""

from __future__ import annotations

import fnmatch
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from ._function import Function, FunctionError, want


def _url_host(url: Any) -> str:
    want("urlHost", 1, url, "string")
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def _url_join(base: Any, ref: Any) -> str:
    want("urlJoin", 1, base, "string")
    want("urlJoin", 2, ref, "string")
    return urljoin(str(base), str(ref))


def url_normalize(url: str) -> str:
    """The URL as a crawl key: scheme and host lower-cased, a default port, the fragment and an
    empty path dropped; the query kept as written (its order can matter to a site)."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower().rstrip(".")
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        netloc += f":{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _url_normalize(url: Any) -> str:
    want("urlNormalize", 1, url, "string")
    return url_normalize(url)


MAX_GLOB = 1000  # characters of a glob pattern (each is compiled to a regular expression)


def _glob_match(text: Any, patterns: Any) -> bool:
    want("globMatch", 1, text, "string")
    want("globMatch", 2, patterns, "string", "array")
    for pattern in [patterns] if isinstance(patterns, str) else patterns:
        want("globMatch", 2, pattern, "string")
        if len(pattern) > MAX_GLOB:
            raise FunctionError(
                f"globMatch() patterns have at most {MAX_GLOB} characters, got {len(pattern)}"
            )
        if fnmatch.fnmatchcase(text, pattern):
            return True
    return False


URLS: list[Function] = [
    Function("urlHost", _url_host, 1, 1, "string", "The host name of a URL."),
    Function("urlJoin", _url_join, 2, 2, "string", "A URL resolved against a base URL."),
    Function(
        "urlNormalize",
        _url_normalize,
        1,
        1,
        "string",
        "A URL as a crawl key: scheme and host lower-case, no default port, no fragment, "
        "`/` for an empty path (`urlNormalize('HTTP://A.test:80/x#top')` → `http://a.test/x`).",
    ),
    Function(
        "globMatch",
        _glob_match,
        2,
        2,
        "boolean",
        "Whether the text matches a glob pattern, or one of a list of them (`*` any text, "
        "`?` one character, `[ab]` a set): `globMatch(url, '*/docs/*')`.",
        "globMatch(text, pattern | patterns)",
    ),
]
