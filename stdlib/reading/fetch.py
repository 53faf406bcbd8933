"""The `fetch` action: a page read over plain HTTP(S), without a browser, as Markdown, HTML, text
or links through the same main-content pipeline as `get_page_content`.

Declaration and implementation; HTTP goes through the run's `WebClient` (politeness lives there).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import anyio

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec

if TYPE_CHECKING:  # httpx is imported when a page is fetched, not by dsl validate
    from .._context import ActionContext
    from ..web import Body, WebClient

from .. import _schemas
from .._schemas import (
    BOOLEAN,
    INTEGER,
    NULLABLE_STRING,
    PAGE_TYPE,
    STRING,
    TIMEOUT_MS,
    URL,
    args,
    result,
)

HTML_TYPES = ("text/html", "application/xhtml+xml")
MAX_REDIRECTS = 10


def read_html(
    html: str, url: str, fmt: str, only_main: bool, want_links: bool
) -> tuple[str, bool, str, list[str], str | None, str]:
    """(content, is main content, title, links, why it needs script, pageType): CPU work, for a
    thread."""
    import lxml.html

    from taskplate.dsl import url_normalize as normalize_url

    from ..content import needs_script, page_type, to_links
    from .get_page_content import render_typed

    if fmt == "html" and not only_main:
        content, is_main, kind = html, True, page_type(html)
    else:
        content, is_main, kind = render_typed(html, url, fmt, only_main)
    title, why = "", None
    if html.strip():
        try:
            doc = lxml.html.document_fromstring(html)
        except (ValueError, lxml.etree.ParserError):
            doc = None
        if doc is not None:
            title = " ".join((doc.findtext(".//title") or "").split())
            why = needs_script(doc, len(html))
    links: list[str] = []
    if want_links:
        seen: set[str] = set()
        for link in to_links(html, url, False)[0]:
            target = urljoin(url, link["url"])
            if urlsplit(target).scheme not in ("http", "https"):
                continue
            key = normalize_url(target)
            if key not in seen:
                seen.add(key)
                links.append(key)
    return content, is_main, title, links, why, kind


async def _followable(web: WebClient, links: list[str], page_url: str) -> list[str]:
    """The links robots.txt lets us follow, judged for hosts whose rules are known (the page's
    own always is); other hosts' links are kept, and their robots.txt is read when fetched."""
    if not web.config.obey_robots:
        return links
    from ..web import origin

    home = origin(page_url)
    kept = []
    for link in links:
        known = origin(link) == home or web.host(link).robots_read is not None
        if known and not await web.allowed(link):
            continue
        kept.append(link)
    return kept


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    from ..web import client_for

    async with client_for(ctx) as web:
        return (await read_within(ctx, web, args, robots=True))[0]


async def read_within(
    ctx: ActionContext, web: WebClient, args: dict[str, Any], *, robots: bool
) -> tuple[dict[str, Any], str | None]:
    """The page at args' URL read over HTTP (redirects followed, `answer`'s reading) within its
    timeoutMs, else NAVIGATION_TIMEOUT. fetch's, and read_page's HTTP engine."""
    timeout_ms = args.get("timeoutMs", 30_000)
    try:
        with anyio.fail_after(timeout_ms / 1000):
            body = await follow(
                ctx, web, args["url"], args.get("maxBodyBytes", 10_000_000), robots=robots
            )
            return await answer(ctx, web, args, body)
    except TimeoutError:
        raise TaskplateError(
            ErrorCode.NAVIGATION_TIMEOUT,
            f"{args['url']} was not read within {timeout_ms} ms",
            "Raise timeoutMs, or try again later.",
            {"url": args["url"]},
        ) from None


async def follow(
    ctx: ActionContext, web: WebClient, start: str, max_body: int, *, robots: bool = True
) -> Body:
    """The answer at the end of the URL's redirects, each hop checked against the URL policy
    (and robots.txt, unless `robots` is false: a page the caller would read in a browser)."""
    url = start
    for _hop in range(MAX_REDIRECTS + 1):
        if urlsplit(url).scheme not in ("http", "https"):
            raise TaskplateError(
                ErrorCode.URL_NOT_ALLOWED,
                f"{url} is not an http(s) URL; fetch reads http and https only",
                "Use an http(s) URL.",
                {"url": url},
            )
        await ctx.check_url(url)  # every hop, so a redirect cannot lead where the caller may not go
        if robots and not await web.allowed(url):
            raise TaskplateError(
                ErrorCode.URL_NOT_ALLOWED,
                f"{url} is disallowed by the site's robots.txt",
                "Leave it out; the site asks automated readers not to read it.",
                {"url": url, "robots": True},
            )
        body = await web.get(url, max_body)
        location = body.headers.get("location")
        if body.status in (301, 302, 303, 307, 308) and location:
            url = urljoin(url, location.strip())
            continue
        return body
    raise TaskplateError(
        ErrorCode.NAVIGATION_FAILED,
        f"{start} redirected more than {MAX_REDIRECTS} times",
        "The site redirects in a loop; leave this URL out.",
        {"url": start},
    )


async def answer(
    ctx: ActionContext, web: WebClient, args: dict[str, Any], body: Body
) -> tuple[dict[str, Any], str | None]:
    """fetch's result for an answer, and why its page seems to need script (None: it does not)."""
    fmt = args.get("format", "markdown")
    mime = body.content_type.split(";")[0].strip().lower()
    is_html = mime in HTML_TYPES or (
        not mime and body.data[:512].lstrip().lower().startswith((b"<!doctype html", b"<html"))
    )
    out: dict[str, Any] = {
        "url": body.url,
        "status": body.status,
        "contentType": mime,
        "title": "",
        "format": fmt,
        "content": "",
        "bytes": 0,
        "truncated": False,
        "links": [],
        "needsScript": False,
        "artifactId": None,
        "pageType": "other",
    }
    if not is_html:
        if args.get("nonHtml", "refuse") == "refuse":
            raise TaskplateError(
                ErrorCode.NAVIGATION_FAILED,
                f"{body.url} is {mime or 'of no declared type'}, not HTML",
                'Pass nonHtml: "artifact" to keep it as an artifact, or leave it out.',
                {"url": body.url, "contentType": mime},
            )
        name = (urlsplit(body.url).path.rsplit("/", 1)[-1] or "download")[:100]
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", name) or "download"
        out["artifactId"] = await ctx.save_artifact(
            safe, body.data, mime or "application/octet-stream"
        )
        out["bytes"] = len(body.data)
        return out, None
    from ..web import decode

    html, _charset = decode(body.data, body.content_type)
    only_main = args.get("onlyMainContent", True)
    want_links = args.get("links", False)
    from ..content import convert

    content, is_main, title, links, why, kind = await convert(
        read_html, html, body.url, fmt, only_main, want_links
    )
    from .get_page_content import not_main, truncate

    content, size, truncated = truncate(content, args.get("maxBytes"))
    warnings = list(body.notes)
    if only_main and not is_main and fmt != "links":
        warnings.append(not_main(content, fmt))
    if truncated:
        warnings.append(f"the content was cut at {args['maxBytes']} bytes")
    if why:
        warnings.append(f"this page may need a browser: {why}")
    out.update(
        title=title,
        content=content,
        bytes=size,
        truncated=truncated,
        links=await _followable(web, links, body.url) if want_links else [],
        needsScript=why is not None,
        pageType=kind,
    )
    if warnings:
        out["warnings"] = warnings
    return out, why


ACTION = ActionSpec(
    name="fetch",
    level=Level.L0,
    summary="Read a page over plain HTTP(S), without a browser: its content as markdown, html, "
    "text or links (main content as get_page_content), its links, and whether it needs script. "
    "Polite: robots.txt, Crawl-delay and a per-host limit are obeyed. Sends the run's cookies "
    "(its session's, else its login profile's), as a browser would.",
    args_schema=args(
        {
            "url": URL,
            **_schemas.PAGE_CONTENT,
            "maxBytes": {
                **_schemas.PAGE_CONTENT["maxBytes"],
                "description": "Cut the content at this many bytes.",
            },
            "maxBodyBytes": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50_000_000,
                "default": 10_000_000,
                "description": "Refuse an answer larger than this, as it comes or as it decodes "
                "(gzip, deflate, br, zstd): the read stops there.",
            },
            "links": {
                "type": "boolean",
                "default": False,
                "description": "Also list the page's links (absolute, normalised, those robots.txt allows).",
            },
            "nonHtml": {
                "enum": ["refuse", "artifact"],
                "default": "refuse",
                "description": "What to do with an answer that is not HTML: fail, or keep it as an artifact.",
            },
            "timeoutMs": TIMEOUT_MS,
        },
        ["url"],
    ),
    result_schema=result(
        {
            "url": STRING,
            "status": INTEGER,
            "contentType": STRING,
            "title": STRING,
            "format": STRING,
            "content": STRING,
            "bytes": INTEGER,
            "truncated": BOOLEAN,
            "links": {"type": "array", "items": STRING},
            "needsScript": BOOLEAN,
            "artifactId": NULLABLE_STRING,
            "pageType": PAGE_TYPE,
        }
    ),
    retryable=frozenset({ErrorCode.NAVIGATION_TIMEOUT}),
    needs_browser=False,
    pure=True,
    run=run,
)
