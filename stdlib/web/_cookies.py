"""The http engine's cookie jar: a browser profile's cookies (Playwright storageState entries) and
those answers set, sent as a browser sends them (domain, path, Secure, expiry). Knows no files.
"""

from __future__ import annotations

import http.cookiejar
from collections.abc import Iterable, Mapping
from http.cookiejar import Cookie, CookieJar, DefaultCookiePolicy
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError


class BrowserCookiePolicy(DefaultCookiePolicy):
    """RFC 6265's domain matching, which Python's default policy does not quite follow: a
    host-only cookie (set without Domain) goes to its own host only, never to its subdomains,
    and a domain cookie to the domain and every host under it (`localhost` included)."""

    def return_ok_domain(self, cookie: Cookie, request: Any) -> bool:
        host, effective = http.cookiejar.eff_request_host(request)  # type: ignore[attr-defined]
        domain = cookie.domain.lower()
        if not cookie.domain_specified:
            return domain in (host, effective)
        bare = domain.lstrip(".")
        return any(name == bare or name.endswith("." + bare) for name in (host, effective))


def _bad(index: int, why: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.EXECUTION_ERROR,
        f"the profile's cookie #{index + 1} cannot be read: {why}",
        "Log in again (dsl login --profile …) to store the profile afresh.",
        {"cookie": index + 1},
    )


def cookie_of(entry: Mapping[str, Any], index: int = 0) -> Cookie:
    """One storageState cookie as the jar keeps it: a leading dot on the domain marks a domain
    cookie (as Chromium writes it), an expiry of -1 a session cookie."""
    if not isinstance(entry, Mapping):
        raise _bad(index, "it is not an object")
    name, value, domain = entry.get("name"), entry.get("value"), entry.get("domain")
    if not isinstance(name, str) or not name or not isinstance(value, str):
        raise _bad(index, "it has no name or value")
    if not isinstance(domain, str) or not domain.strip("."):
        raise _bad(index, "it has no domain")
    path, expires = entry.get("path") or "/", entry.get("expires", -1)
    if not isinstance(path, str) or not isinstance(expires, int | float) or expires != expires:
        raise _bad(index, "its path or expiry is not valid")
    return Cookie(
        version=0,
        name=name,
        value=value,
        port=None,
        port_specified=False,
        domain=domain.lower(),
        domain_specified=domain.startswith("."),
        domain_initial_dot=domain.startswith("."),
        path=path,
        path_specified=True,
        secure=bool(entry.get("secure")),
        expires=None if expires < 0 else int(expires),
        discard=expires < 0,
        comment=None,
        comment_url=None,
        rest={"HttpOnly": ""} if entry.get("httpOnly") else {},
    )


def cookie_jar(entries: Iterable[Mapping[str, Any]] = ()) -> CookieJar:
    """A jar holding these cookies (expired ones are never sent), matching as a browser does."""
    jar = CookieJar(BrowserCookiePolicy())
    for index, entry in enumerate(entries):
        jar.set_cookie(cookie_of(entry, index))
    return jar
