"""A URL's host as the URL standard (WHATWG) reads it, and as Chromium does: `2130706434`,
`0x7f.1` and `127.2` are 127.x addresses, `[::ffff:7f00:1]` one too. Parsing only, no policy.

The one reader of hosts before any check (the URL policy, the proxy's bypass list, the plain
HTTP client's connections): a host read one way by the check and another by the connection is
how a refused address gets through. Ada (ada-url) does the parsing, as Node.js does.
"""

from __future__ import annotations

import ada_url

# What may not stand in a bare host (a connection's, a bypass entry's): it would make
# `http://{host}/` another URL than one of that host.
_NOT_IN_HOST = frozenset("/\\?#@ \t\r\n")


def url_host(url: str) -> str | None:
    """The URL's host as a browser reads it, lowercased, IPv4 written as a dotted quad and IPv6
    without brackets ('' for a URL without one); None when the URL is not one (a browser would
    not open it)."""
    try:
        parsed = ada_url.URL(url)
    except ValueError:
        return None
    host: str = parsed.hostname
    return host[1:-1] if host.startswith("[") else host


def host_of(host: str) -> str | None:
    """A bare host (as a connection or a list names it) as `url_host` reads it; None when it
    is none (an IPv4-looking name that is no address, characters no host has)."""
    if not host or _NOT_IN_HOST & set(host):
        return None
    bare = host.strip("[]")
    return url_host(f"http://[{bare}]/" if ":" in bare else f"http://{bare}/")


def as_read(url: str) -> str:
    """The URL as a browser reads and sends it (the standard's serialisation: a numeric host as
    a dotted quad, `\\` as `/`): what is sent is then what was checked. Unchanged when it is not
    a URL (the caller's check refuses it, or the request fails as before)."""
    try:
        href: str = ada_url.URL(url).href
    except ValueError:
        return url
    return href


def joined(base: str, location: str) -> str | None:
    """Where a redirect from `base` to `location` leads, as a browser reads it (the standard's
    serialisation); None when that is not a URL."""
    try:
        href: str = ada_url.join_url(base, location.strip())
    except ValueError:
        return None
    return href
