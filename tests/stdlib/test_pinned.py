"""The http engine connects to the address the URL policy checked: a name resolved once, never
again by the connection (DNS rebinding), TLS still verifying the name, and every connection
under the policy even when no step checked its URL first."""

from __future__ import annotations

import gc
import ssl
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import pytest

from taskplate.browser import UrlPolicy
from taskplate.contract import TaskplateError, TrustLevel
from taskplate.stdlib import run_action
from taskplate.stdlib._context import ActionContext, MemoryArtifacts
from taskplate.stdlib.web._client import WebClient, WebConfig
from tests.conftest import NOWHERE_HOST
from tests.fixtures.crawl_site import CrawlSite, serve_site
from tests.fixtures.https_site import NAME, HttpsFixture, serve_https
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio
PUBLIC = "93.184.216.34"  # a public address; the test network routes it to a local site


class ChangingDNS:
    """A resolver whose answers for a name change from one look-up to the next: the first answer
    is for the check, a later one is what a second look-up (the connection's) would get."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.calls: list[str] = []

    def __call__(self, host: str) -> list[str]:
        self.calls.append(host)
        given = self.answers.get(host)
        if given is None:
            return [host] if host.replace(".", "").isdigit() else []
        return given.pop(0) if len(given) > 1 else given[0]


class LocalNetwork(httpcore.AnyIOBackend):
    """The machine's network as the test sees it: a name is resolved through the test's resolver
    (as the operating system would, once more), `PUBLIC` is routed to a local site's port, and
    127.0.0.1 is the machine itself. Every (host asked, where it went) is kept."""

    def __init__(self, dns: ChangingDNS, routes: dict[str, int]) -> None:
        self.dns, self.routes = dns, routes
        self.connections: list[tuple[str, str]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = host if host[0].isdigit() else (self.dns(host) or [""])[0]
        self.connections.append((host, address))
        if address in self.routes:
            port = self.routes[address]
        elif address != "127.0.0.1":
            raise httpcore.ConnectError(f"no route to {address or host}")
        return await super().connect_tcp("127.0.0.1", port, timeout, local_address, socket_options)


@pytest.fixture(scope="module")
def public() -> Iterator[CrawlSite]:
    """The public site a name is checked to be at."""
    with serve_site(pages=5) as site:
        yield site


def context(policy: UrlPolicy, web: WebClient) -> ActionContext:
    return ActionContext(
        trust=policy.trust, artifacts=MemoryArtifacts(), web=web, url_policy=policy
    )


async def test_a_name_that_rebinds_to_loopback_is_connected_where_it_was_checked(
    public: CrawlSite, site: FixtureServer
) -> None:
    """rebind.test answers a public address to the check and 127.0.0.1 to any later look-up;
    the internal service on 127.0.0.1 (the fixture site, on the port the URL names) must
    never be reached. Without the pin, the connection's own look-up goes there."""
    url = f"http://rebind.test:{site.server_address[1]}/p/1"

    def world() -> tuple[ChangingDNS, LocalNetwork, UrlPolicy]:
        dns = ChangingDNS({"rebind.test": [[PUBLIC], ["127.0.0.1"]]})
        return (
            dns,
            LocalNetwork(dns, {PUBLIC: public.server_address[1]}),
            UrlPolicy(TrustLevel.REMOTE, resolver=dns),
        )

    # As before the fix: the check passes on the first answer, the connection resolves the name
    # itself (a client with no policy of its own) and reaches the internal service.
    dns, network, policy = world()
    before = site.traffic.paths.count("/p/1")
    async with WebClient(WebConfig(network=network)) as web:
        page = await run_action("fetch", context(policy, web), {"url": url})
    assert ("rebind.test", "127.0.0.1") in network.connections and dns.calls.count(
        "rebind.test"
    ) >= 2
    assert page["status"] == 404 and site.traffic.paths.count("/p/1") == before + 1

    # The fix: resolved once, for the check; every connection goes to the address checked.
    dns, network, policy = world()
    public.reset()
    async with WebClient(WebConfig(network=network), policy) as web:
        page = await run_action("fetch", context(policy, web), {"url": url})
        again = await run_action("fetch", context(policy, web), {"url": url})
    assert page["title"] == again["title"] == "Page 1"  # the public site answered
    assert dns.calls == ["rebind.test"]
    assert network.connections and {to for _, to in network.connections} == {PUBLIC}
    assert site.traffic.paths.count("/p/1") == before + 1  # the internal service: not again
    assert public.hits["/p/1"] == 2


async def test_a_connection_is_refused_when_its_address_is_not_allowed(
    public: CrawlSite,
) -> None:
    """The connection holds the policy on its own: a request no step checked (robots.txt, a
    sitemap, a redirect) to a name that resolves to loopback is refused before connecting."""
    dns = ChangingDNS({"inside.test": [["127.0.0.1"]], "outside.test": [[PUBLIC]]})
    network = LocalNetwork(dns, {PUBLIC: public.server_address[1]})
    policy = UrlPolicy(TrustLevel.REMOTE, resolver=dns, deny_hosts=("denied.test",))
    async with WebClient(WebConfig(network=network), policy) as web:
        for host, why in (
            ("inside.test", "resolves to 127.0.0.1, a loopback address"),
            ("denied.test", "denied by the operator"),
            (NOWHERE_HOST, "does not resolve"),
        ):
            with pytest.raises(TaskplateError) as caught:
                await web.get(f"http://{host}:{public.server_address[1]}/p/1", 10_000)
            assert caught.value.code == "URL_NOT_ALLOWED" and why in caught.value.message
        answer = await web.get(f"http://outside.test:{public.server_address[1]}/p/1", 10_000)
    assert answer.status == 200
    assert network.connections and set(network.connections) == {(PUBLIC, PUBLIC)}
    gc.collect()  # an unclosed client or socket would raise ResourceWarning (an error here)


@pytest.fixture(scope="module")
def https() -> Iterator[tuple[HttpsFixture, ssl.SSLContext]]:
    with serve_https() as served:
        yield served


async def test_tls_verifies_the_name_on_a_pinned_connection(
    https: tuple[HttpsFixture, ssl.SSLContext],
) -> None:
    server, trusted = https
    port = server.server_address[1]
    dns = ChangingDNS({NAME: [[PUBLIC], ["127.0.0.1"]], "other.test": [[PUBLIC]]})
    network = LocalNetwork(dns, {PUBLIC: port})
    policy = UrlPolicy(TrustLevel.REMOTE, resolver=dns)
    config = WebConfig(network=network, verify=trusted)
    async with WebClient(config, policy) as web:
        page = await run_action("fetch", context(policy, web), {"url": server.url("/article.html")})
        assert page["status"] == 200 and page["url"].startswith(f"https://{NAME}:")
        assert NAME in server.names  # SNI named the host, not the address connected to
        with pytest.raises(TaskplateError) as caught:  # the certificate is not for this name
            await run_action(
                "fetch", context(policy, web), {"url": f"https://other.test:{port}/article.html"}
            )
    assert caught.value.code == "NAVIGATION_FAILED"
    assert "CERTIFICATE_VERIFY_FAILED" in caught.value.message or "certificate" in (
        caught.value.message.lower()
    )
    assert {to for _, to in network.connections} == {PUBLIC}  # pinned, both times
    async with WebClient(WebConfig(network=network), policy) as web:  # the system's authorities
        with pytest.raises(TaskplateError) as caught:
            await run_action("fetch", context(policy, web), {"url": server.url("/article.html")})
    assert caught.value.code == "NAVIGATION_FAILED"


async def test_a_name_that_does_not_resolve_fails_clearly_for_every_caller(
    public: CrawlSite,
) -> None:
    """Remote: refused by the policy before any connection; local: the connection fails."""
    dns = ChangingDNS({})
    network = LocalNetwork(dns, {})
    for trust, code, tried in (
        (TrustLevel.REMOTE, "URL_NOT_ALLOWED", set()),  # refused before any connection
        (TrustLevel.LOCAL, "NAVIGATION_FAILED", {(NOWHERE_HOST, "")}),
    ):
        network.connections.clear()
        policy = UrlPolicy(trust, resolver=dns)
        async with WebClient(WebConfig(network=network), policy) as web:
            with pytest.raises(TaskplateError) as caught:
                await run_action("fetch", context(policy, web), {"url": f"http://{NOWHERE_HOST}/"})
        assert caught.value.code == code and NOWHERE_HOST in caught.value.message
        assert set(network.connections) == tried
    gc.collect()
