"""Plain HTTP for actions that need no browser: one client per run, polite by default (robots.txt,
Crawl-delay, a per-host concurrency limit, a User-Agent operators set), sitemaps read.

Knows no templates; the URL policy is the caller's (checked at every redirect hop by `fetch`, and
at every connection, which goes to the address the policy checked: `_pinned.py`). Cookies: the
run's profile's, and those answers set, kept for the run (`_cookies.py`).
"""

from __future__ import annotations

import os
import re
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urljoin, urlsplit

import anyio
import httpcore
import httpx

from taskplate.browser import (
    Network,
    as_read,
    mask_credentials,
    through_proxy,
    too_large,
)
from taskplate.contract import ErrorCode, TaskplateError

from ._answers import host_of_url, proxy_refused, refuse_other_schemes
from ._body import Body, asked_again, failure, read_body
from ._charset import decode
from ._cookies import cookie_jar
from ._decoding import ACCEPT_ENCODING, DecodingError, decoded
from ._hosts import Host
from ._pinned import PinnedNetwork, PinnedTransport

if TYPE_CHECKING:
    from taskplate.browser import Session, UrlPolicy

# The cookies a run's HTTP client starts from (storageState entries), asked when it first connects.
CookieSource = Callable[[], Awaitable[Sequence[Mapping[str, Any]]]]

DEFAULT_USER_AGENT = (
    "taskplate/0.1 (automated reader; set TASKPLATE_USER_AGENT to name the operator)"
)
ROBOTS_MAX_BYTES = 500_000  # what Google reads of a robots.txt
ROBOTS_MAX_REDIRECTS = 5  # followed on the same host only (http to https, a trailing path)
SITEMAP_MAX_BYTES = 10_000_000
SITEMAP_MAX_FILES = 20
_LOC = re.compile(rb"<loc>\s*([^<\s]+)\s*</loc>", re.I)
_SITEMAP_INDEX = re.compile(rb"<sitemapindex[\s>]", re.I)


@dataclass(frozen=True)
class WebConfig:
    """What operators set for plain HTTP: who we say we are, how hard we may press one host."""

    user_agent: str = field(
        default_factory=lambda: os.environ.get("TASKPLATE_USER_AGENT") or DEFAULT_USER_AGENT
    )
    host_concurrency: int = 8  # requests in flight to one host at most (Scrapy's default too)
    obey_robots: bool = True
    max_crawl_delay_s: float = 30.0  # a robots.txt asking for more is read as this
    # The network under the pinned connections, and the certificates trusted: tests map
    # addresses to the fixture site and trust its local certificate authority.
    network: httpcore.AsyncNetworkBackend | None = None
    verify: ssl.SSLContext | bool = True
    # `dsl record`/`dsl test`: the client's transport wrapped to keep every exchange, or
    # replaced by a recording's (stdlib/web/_har.py)
    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


class WebClient:
    """One run's HTTP client: pooled connections, robots.txt per host, per-host slots and delays.

    Owned by whoever opened it (`async with WebClient(...)`); every request goes through `get`.
    `policy` says where its connections may go (None: anywhere, by name); `cookies` what it
    starts from (None: no cookies)."""

    def __init__(
        self,
        config: WebConfig | None = None,
        policy: UrlPolicy | None = None,
        cookies: CookieSource | None = None,
        network: Network | None = None,
    ) -> None:
        self.config = config or WebConfig()
        # The run's proxy, identity and host pace, shared with its browser session.
        self.network = network if network is not None else Network()
        self.policy = policy
        self._cookies = cookies
        self._client: httpx.AsyncClient | None = None
        self._opening = anyio.Lock()
        self._hosts: dict[str, Host] = {}
        self._browser_slots: anyio.CapacityLimiter | None = None

    async def __aenter__(self) -> WebClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            with anyio.CancelScope(shield=True):
                await client.aclose()

    async def client(self) -> httpx.AsyncClient:
        """The httpx client, made on first use with the cookies it starts from (a cookie source
        that fails leaves nothing open, and is asked again by the next request)."""
        if self._client is not None:
            return self._client
        async with self._opening:
            if self._client is None:
                jar = cookie_jar(await self._cookies() if self._cookies is not None else ())
                limits = httpx.Limits(max_connections=100, max_keepalive_connections=50)
                network = PinnedNetwork(self._connect_to, self.config.network)
                pinned = PinnedTransport(network, limits, self.config.verify)
                headers = {"User-Agent": self.config.user_agent, "Accept-Encoding": ACCEPT_ENCODING}
                self._client = httpx.AsyncClient(
                    follow_redirects=False,
                    headers=headers | self.network.identity.http_headers(),
                    cookies=jar,  # the jar itself: answers' cookies go into it, kept for the run
                    transport=self._transport(self._proxied(limits) or pinned),
                    mounts=self._direct(pinned),
                    trust_env=False,  # HTTPS_PROXY and NO_PROXY are the run's Network's
                    timeout=httpx.Timeout(20.0),
                    event_hooks={"response": [refuse_other_schemes]},
                )
        return self._client

    def _transport(self, pinned: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
        return self.config.wrap(pinned) if self.config.wrap is not None else pinned

    def _proxied(self, limits: httpx.Limits) -> httpx.AsyncBaseTransport | None:
        """Through the run's proxy, which resolves the names (nothing is pinned then)."""
        proxy = self.network.proxy
        if proxy is None:
            return None
        return httpx.AsyncHTTPTransport(
            proxy=httpx.Proxy(proxy.url), limits=limits, verify=self.config.verify, trust_env=False
        )

    def _direct(self, pinned: httpx.AsyncBaseTransport) -> dict[str, httpx.AsyncBaseTransport]:
        """The proxy's bypass list (NO_PROXY), connected to directly, pinned."""
        proxy = self.network.proxy
        if proxy is None or self.config.wrap is not None:
            return {}
        hosts = [h.strip().lstrip("*.").lower() for h in proxy.bypass.split(",") if h.strip()]
        direct = {f"all://{h}": pinned for h in hosts if h and "<" not in h}
        return direct | {f"all://*.{h}": pinned for h in hosts if h and "<" not in h}

    async def _connect_to(self, host: str) -> list[str]:
        if self.policy is None:
            return [host]
        return await self.policy.connect_to_async(host)

    def browser_slots(self, tabs: int) -> anyio.CapacityLimiter:
        """How many of the run's pages `read_page` may read in the browser at once (the first
        caller's number holds for the run), while others read over HTTP beside them."""
        if self._browser_slots is None:
            self._browser_slots = anyio.CapacityLimiter(tabs)
        return self._browser_slots

    def host(self, url: str) -> Host:
        key = origin(url)
        state = self._hosts.get(key)
        if state is None:
            state = self._hosts[key] = Host(anyio.CapacityLimiter(self.config.host_concurrency))
        return state

    # -- robots.txt -----------------------------------------------------------------------------
    async def robots(self, url: str) -> Any:
        """The host's robots.txt rules (protego), read once; None when it has none."""
        state = self.host(url)
        if state.robots_read is None:
            state.robots_read = anyio.Event()
            try:
                state.robots = await self._read_robots(url)
                delay = state.robots.crawl_delay(self.config.user_agent) if state.robots else None
                state.delay = min(float(delay or 0), self.config.max_crawl_delay_s)
            finally:
                state.robots_read.set()
        await state.robots_read.wait()
        return state.robots

    async def _read_robots(self, url: str) -> Any:
        from protego import Protego

        target = urljoin(origin(url), "/robots.txt")
        host = host_of_url(url)
        for _hop in range(ROBOTS_MAX_REDIRECTS + 1):
            try:
                body = await self._request(target, ROBOTS_MAX_BYTES, polite=False)
            except TaskplateError:
                return None  # unreachable: as if there were none (what crawlers do)
            location = body.headers.get("location")
            if body.status not in (301, 302, 303, 307, 308) or not location:
                break
            target = urljoin(target, location.strip())
            if host_of_url(target) != host:  # only where the policy already let us go
                return None
        if body.status >= 300 or body.status < 200:
            return None
        text, _ = decode(body.data, body.content_type)
        return Protego.parse(text)

    async def allowed(self, url: str) -> bool:
        if not self.config.obey_robots:
            return True
        rules = await self.robots(url)
        return rules is None or bool(rules.can_fetch(url, self.config.user_agent))

    async def sitemap_urls(self, url: str, limit: int) -> list[str]:
        """URLs the host's sitemaps list (those robots.txt names, else /sitemap.xml), in order,
        index files followed, at most `limit`; other hosts' sitemaps are ignored."""
        rules = await self.robots(url)
        named = [
            s for s in (rules.sitemaps if rules is not None else []) if origin(s) == origin(url)
        ]
        todo = named or [urljoin(origin(url), "/sitemap.xml")]
        found: list[str] = []
        seen: set[str] = set()
        files = 0
        while todo and len(found) < limit and files < SITEMAP_MAX_FILES:
            sitemap = todo.pop(0)
            if sitemap in seen:
                continue
            seen.add(sitemap)
            files += 1
            try:
                body = await self.get(sitemap, SITEMAP_MAX_BYTES)
            except TaskplateError:
                continue
            if body.status >= 400:
                continue
            data = body.data
            if data[:2] == b"\x1f\x8b":  # a .xml.gz file: what fits in the limit is read
                try:
                    data, _more = decoded(data, "gzip", SITEMAP_MAX_BYTES)
                except DecodingError:
                    continue
            locs = [
                m.group(1).decode("utf-8", "replace").replace("&amp;", "&")
                for m in _LOC.finditer(data)
            ]
            if _SITEMAP_INDEX.search(data[:2048]):
                todo.extend(loc for loc in locs if origin(loc) == origin(url))
            else:
                found.extend(loc for loc in locs if origin(loc) == origin(url))
        return found[:limit]

    # -- requests -------------------------------------------------------------------------------
    @asynccontextmanager
    async def _polite(self, url: str) -> AsyncIterator[None]:
        """A slot of the host; with a Crawl-delay, one request at a time, each starting the
        delay after the previous one ended (so the site sees at least that gap)."""
        state = self.host(url)
        async with state.slots:
            if not state.delay:
                yield
                return
            async with state.lock:
                wait = state.next_at - time.monotonic()
                if wait > 0:
                    await anyio.sleep(wait)
                try:
                    yield
                finally:
                    state.next_at = time.monotonic() + state.delay

    async def get(self, url: str, max_bytes: int) -> Body:
        """One GET, no redirect followed, politely (robots.txt read first, so its Crawl-delay
        holds from the first page)."""
        if self.config.obey_robots:
            await self.robots(url)
        return await asked_again(self.network.throttle, url, self._request, max_bytes)

    async def _request(self, url: str, max_bytes: int, *, polite: bool) -> Body:
        try:
            client = await self.client()
            async with self._polite(url) if polite else _nothing():
                # Built here, not by build_request, which would copy the jar into one that
                # matches domains as Python's default policy does, not as browsers do.
                # Sent as a browser reads it (`as_read`): the host the URL policy judged
                # (`http://2130706433/` is 127.0.0.1), not another reading of it by httpx or
                # by the proxy, which would resolve the number itself.
                request = httpx.Request(
                    "GET",
                    as_read(url),
                    headers=client.headers,
                    extensions={"timeout": client.timeout.as_dict()},
                )
                client.cookies.set_cookie_header(request)
                waited = await self.network.throttle.wait(url) if polite else None
                started = time.monotonic()
                response = await _sent(client, request)
                paced = (
                    self.network.throttle.answered(
                        url,
                        response.status_code,
                        response.headers.get("retry-after"),
                        time.monotonic() - started,
                    )
                    if polite
                    else None
                )
                try:
                    if response.status_code == 407 and self.network.proxy_for(host_of_url(url)):
                        raise proxy_refused(url, response.headers.get("proxy-authenticate"))
                    declared = response.headers.get("content-length", "")
                    if declared.isdigit() and int(declared) > max_bytes:
                        raise too_large(url, max_bytes)
                    chunks = await read_body(response, url, max_bytes)
                finally:
                    await response.aclose()
        except httpx.TimeoutException:
            raise TaskplateError(
                ErrorCode.NAVIGATION_TIMEOUT, f"{url} did not answer in time", "Try again later."
            ) from None
        except httpx.HTTPError as exc:
            error = TaskplateError(
                ErrorCode.NAVIGATION_FAILED,
                mask_credentials(f"could not read {url}: {failure(exc)}"),
                "Check the URL; the site may be down.",
                {"url": url},
            )
            # Through a proxy, the proxy is all httpx connects to: a failed connection is its.
            proxys = isinstance(exc, httpx.ConnectError | httpx.ProxyError)
            proxy = self.network.proxy_for(host_of_url(url))
            raise through_proxy(error, proxy, proxys=proxys) from None
        except TaskplateError as exc:
            if exc.details and exc.details.get("proxyStatus") == 407:
                raise through_proxy(
                    exc, self.network.proxy_for(host_of_url(url)), proxys=True
                ) from None
            raise
        return Body(
            url=url,
            status=response.status_code,
            content_type=response.headers.get("content-type", ""),
            data=b"".join(chunks),
            headers=response.headers,
            notes=[n for n in (waited, paced) if n],
        )


class Caller(Protocol):
    """What `client_for` reads of an action's context (`_context.ActionContext`, which holds the
    run's `WebClient`, so this module names it by what it has)."""

    @property
    def web(self) -> WebClient | None: ...
    @property
    def policy(self) -> UrlPolicy: ...
    @property
    def session(self) -> Session | None: ...


@asynccontextmanager
async def client_for(ctx: Caller) -> AsyncIterator[WebClient]:
    """The run's client, or for a call outside a run one of its own, under the caller's URL
    policy and with its session's cookies, closed when the call ends."""
    if ctx.web is not None:
        yield ctx.web
        return
    cookies = ctx.session.cookies if ctx.session is not None else None
    network = ctx.session.network if ctx.session is not None else None
    async with WebClient(policy=ctx.policy, cookies=cookies, network=network) as web:
        yield web


@asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield


async def _sent(client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
    """The response to a GET. One sent on a kept-alive connection that the server or a proxy
    had closed without saying so (tinyproxy answers HTTP/1.1 without `Connection: close`, then
    closes) ends with no response at all: it is sent once more, on a new connection, as
    browsers do with an idempotent request (RFC 9112, 9.3.1)."""
    try:
        return await client.send(request, stream=True)
    except httpx.RemoteProtocolError:
        return await client.send(request, stream=True)
