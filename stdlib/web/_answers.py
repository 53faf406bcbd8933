"""What the http engine makes of an answer before anyone reads it: a redirect's Location read as
a browser reads it (or refused), a proxy's 407 as the proxy's refusal. No request is made here.
"""

from __future__ import annotations

import httpx

from taskplate.browser import joined, redirect_elsewhere, url_host
from taskplate.contract import ErrorCode, TaskplateError


async def refuse_other_schemes(response: httpx.Response) -> None:
    """A redirect to a javascript:, data: or file: URL is refused as soon as it is read (httpx,
    which makes the next request of every redirect, would fail on some of them untranslated).
    Another one's Location is rewritten as a browser reads it (`joined`): the redirect's
    reader (`fetch`) judges and follows the host a browser would go to, and httpx, which reads
    it first, does not stumble on a numeric host it spells differently (`0251.0376.0251.0376`)."""
    location = response.headers.get("location")
    if response.is_redirect and location:
        url = str(response.request.url)
        target = redirect_elsewhere(url, location)
        if target is not None:
            raise TaskplateError(
                ErrorCode.URL_NOT_ALLOWED,
                f"{url} redirects to {target[:200]}, not an http(s) URL",
                "Leave this URL out: only http and https pages are read.",
                {"url": url, "location": target[:2000]},
            )
        read = joined(url, location)
        if read is None:
            raise TaskplateError(
                ErrorCode.NAVIGATION_FAILED,
                f"{url} redirects to {location.strip()[:200]!r}, which is not a valid URL",
                "The site sent a broken redirect; leave this URL out.",
                {"url": url, "location": location[:2000]},
            )
        response.headers["location"] = read


def host_of_url(url: str) -> str:
    """The URL's host as the URL policy reads it ('' for none)."""
    return url_host(url) or ""


def proxy_refused(url: str, challenge: str | None) -> TaskplateError:
    """A proxy's 407: it wants credentials, or other ones (as through_proxy then names it)."""
    scheme = (challenge or "").split(" ", 1)[0][:40]
    return TaskplateError(
        ErrorCode.NAVIGATION_FAILED,
        f"could not read {url}: the proxy refused the request (407 Proxy Authentication"
        " Required" + (f", it asks for {scheme}" if scheme else "") + ")",
        "Check the proxy's user and password.",
        {"url": url, "proxyStatus": 407},
    )
