"""What a browser identity (a template's `browser` block, a run's options.browser) may say beyond
its schema: a known device, an IANA time zone, headers both engines send alike. No I/O, no browser.

Both engines take their extra headers from here, so one check refuses for both what one of them
would: the Fetch standard's forbidden request-header names (a browser will not send them; plain
HTTP would, as given) and values plain HTTP cannot encode (non-ASCII) or that split a header.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

# https://fetch.spec.whatwg.org/#forbidden-request-header: these names, and any starting
# `proxy-` or `sec-`, less `Referer` and `DNT`: both engines send those as given (Chromium
# takes them from extra headers), and a page read for an agent often needs the referring page. The host, the connection, the body's framing and the cookies are the
# engine's (and the run's profile's) to set, never a caller's.
FORBIDDEN_HEADERS = frozenset(
    {
        "accept-charset",
        "accept-encoding",
        "access-control-request-headers",
        "access-control-request-method",
        "connection",
        "content-length",
        "cookie",
        "cookie2",
        "date",
        "expect",
        "host",
        "keep-alive",
        "origin",
        "set-cookie",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "via",
    }
)
FORBIDDEN_PREFIXES = ("proxy-", "sec-")
# Fetch forbids these only with a forbidden method in them; a caller has no use for them at all.
METHOD_OVERRIDES = frozenset({"x-http-method", "x-http-method-override", "x-method-override"})
# RFC 9110 field-value as both engines send it: visible ASCII, spaces and tabs inside.
_VALUE = re.compile(r"(?:[\x21-\x7e](?:[\x20\x21-\x7e\t]*[\x21-\x7e])?)?", re.ASCII)


def forbidden_header(name: str) -> bool:
    """True when `name` is a request header no caller may set (any case)."""
    low = name.lower()
    return low in FORBIDDEN_HEADERS or low in METHOD_OVERRIDES or low.startswith(FORBIDDEN_PREFIXES)


def identity_problems(browser: Mapping[str, Any], where: str = "browser") -> list[dict[str, str]]:
    """{pointer, message} for each thing of a schema-valid `browser` block (named `where` in
    the messages) that no engine would take as given: an unknown device or time zone, a
    forbidden header, a header value that is not printable ASCII."""
    problems: list[dict[str, str]] = []
    device = browser.get("device")
    if isinstance(device, str):
        from ._devices import device_names

        names = device_names()
        if device not in names:
            near = [n for n in names if n.lower().startswith(device.lower()[:6])][:3]
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            message = f'{where}.device "{device}" is not one of Playwright\'s devices{hint}'
            problems.append({"pointer": "/device", "message": message})
    zone = browser.get("timezoneId")
    if isinstance(zone, str) and not known_time_zone(zone):
        message = f'{where}.timezoneId "{zone}" is not an IANA time zone (Europe/Berlin)'
        problems.append({"pointer": "/timezoneId", "message": message})
    headers = browser.get("extraHeaders")
    for name, value in headers.items() if isinstance(headers, Mapping) else ():
        pointer = "/extraHeaders/" + name.replace("~", "~0").replace("/", "~1")
        if forbidden_header(name):
            message = (
                f'{where}.extraHeaders "{name}" is a header only the browser sets (the Fetch '
                "standard's forbidden request headers: Host, Cookie, Connection, Proxy-*, Sec-*, …)"
            )
            problems.append({"pointer": pointer, "message": message})
        elif isinstance(value, str) and not _VALUE.fullmatch(value):
            message = (
                f'{where}.extraHeaders "{name}": its value must be printable ASCII, without line '
                "breaks or leading and trailing spaces"
            )
            problems.append({"pointer": pointer, "message": message})
    return problems


@cache
def _zones() -> frozenset[str]:
    """The tz database's names (reading them takes ~10 ms: once per process)."""
    import zoneinfo

    return frozenset(zoneinfo.available_timezones())


def known_time_zone(zone: str) -> bool:
    """An IANA time zone this system knows (as Chromium does, from the same tz database)."""
    return zone in _zones()
