"""`fetch`, `sitemap` and `robots` over real HTTP against local sites: redirects hop by hop
under the URL policy, the size limit, charsets, non-HTML, robots.txt, Crawl-delay, the per-host
limit and the User-Agent."""

from __future__ import annotations

import codecs
import contextlib
import gc
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import jsonschema
import pytest

from taskplate.browser import UrlPolicy
from taskplate.contract import TaskplateError, TrustLevel
from taskplate.stdlib import REGISTRY, run_action
from taskplate.stdlib._context import ActionContext, MemoryArtifacts
from taskplate.stdlib.web._charset import decode
from taskplate.stdlib.web._client import WebClient, WebConfig
from tests.conftest import fake_dns
from tests.fixtures.crawl_site import FAKE_HOSTS, CrawlSite, MappedNetwork, serve_site
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def crawl() -> Iterator[CrawlSite]:
    with serve_site(pages=30) as site:
        yield site


def context(web: WebClient | None = None, trust: TrustLevel = TrustLevel.LOCAL) -> ActionContext:
    policy = UrlPolicy(trust, resolver=fake_dns)
    return ActionContext(trust=trust, artifacts=MemoryArtifacts(), web=web, url_policy=policy)


async def fetch(ctx: ActionContext, **args: Any) -> dict[str, Any]:
    result = await run_action("fetch", ctx, args)
    jsonschema.validate(result, REGISTRY["fetch"].result_schema)
    return result


async def read(ctx: ActionContext, url: str) -> None:
    await fetch(ctx, url=url)


async def test_fetch_reads_a_page_as_get_page_content_does(crawl: CrawlSite) -> None:
    async with WebClient() as web:
        page = await fetch(context(web), url=crawl.url("/p/3"), links=True)
    assert page["status"] == 200 and page["title"] == "Page 3"
    # main content: its first heading, equal to the title, is the answer's title
    assert page["content"].startswith("page of a site") and "Home" not in page["content"]
    assert page["needsScript"] is False and page["contentType"] == "text/html"
    assert (
        crawl.url("/p/16") in page["links"] and crawl.url("/p/3") in page["links"]
    )  # #top dropped
    assert crawl.url("/huge") in page["links"]
    for fmt, shows in (("html", "<h1"), ("text", "Page 3"), ("links", "/p/16")):
        async with WebClient() as web:
            other = await fetch(
                context(web), url=crawl.url("/p/3"), format=fmt, onlyMainContent=False
            )
        assert shows in other["content"]


async def test_redirects_are_followed_hop_by_hop_under_the_policy(crawl: CrawlSite) -> None:
    async with WebClient() as web:
        page = await fetch(context(web), url=crawl.url("/old"))
    assert page["url"] == crawl.url("/moved") and page["title"] == "Moved"

    port = crawl.server_address[1]
    config = WebConfig(network=MappedNetwork(FAKE_HOSTS))
    crawl.reset()
    async with WebClient(config) as web:
        ctx = context(web, TrustLevel.REMOTE)
        with pytest.raises(TaskplateError) as caught:
            await fetch(ctx, url=f"http://public.test:{port}/to-private")
        assert caught.value.code == "URL_NOT_ALLOWED"
        assert "10.1.2.3" in caught.value.message  # private.test resolves to a private address
        for url in (
            crawl.url("/"),
            "http://169.254.169.254/latest/meta-data/",
            "file:///etc/passwd",
        ):
            with pytest.raises(TaskplateError) as caught:
                await fetch(ctx, url=url)
            assert caught.value.code == "URL_NOT_ALLOWED"
    assert crawl.hits["/to-private"] == 1 and crawl.hits["/p/1"] == 0 and crawl.hits["/"] == 0


async def test_a_redirect_to_a_private_address_is_refused_at_hop_3(crawl: CrawlSite) -> None:
    """/chain/3 → /chain/2 → /chain/1 → private.test: the third hop is never made, and no
    connection goes to the private address."""
    port = crawl.server_address[1]
    network = MappedNetwork(FAKE_HOSTS)
    crawl.reset()
    ctx = context(trust=TrustLevel.REMOTE)
    async with WebClient(WebConfig(network=network), ctx.policy) as web:
        ctx.web = web
        with pytest.raises(TaskplateError) as caught:
            await fetch(ctx, url=f"http://public.test:{port}/chain/3")
    assert caught.value.code == "URL_NOT_ALLOWED" and "10.1.2.3" in caught.value.message
    assert [crawl.hits[f"/chain/{n}"] for n in (3, 2, 1)] == [1, 1, 1] and crawl.hits["/p/1"] == 0
    assert set(network.asked) == {"93.184.216.34"}  # pinned to public.test's checked address


async def test_a_redirect_loop_fails_clearly(site: FixtureServer) -> None:
    async with WebClient() as web:
        with pytest.raises(TaskplateError) as caught:
            await fetch(context(web), url=site.url("/loop"))
    assert (
        caught.value.code == "NAVIGATION_FAILED" and "redirected more than" in caught.value.message
    )


async def test_the_size_limit_stops_reading(crawl: CrawlSite) -> None:
    async with WebClient() as web:
        with pytest.raises(TaskplateError) as caught:
            await fetch(context(web), url=crawl.url("/huge"), maxBodyBytes=100_000)
        assert "size limit (100000 bytes)" in caught.value.message
        small = await fetch(context(web), url=crawl.url("/p/1"), maxBytes=40)
    assert small["truncated"] and small["bytes"] <= 40 and small["warnings"]


async def test_charsets_from_header_meta_or_guess(site: FixtureServer) -> None:
    async with WebClient() as web:
        page = await fetch(context(web), url=site.url("/latin1"))
    assert page["title"] == "Café" and "Crème brûlée" in page["content"]
    text = "<html><head><meta charset='windows-1252'></head><body>Déjà</body></html>"
    assert decode(text.encode("cp1252"), "text/html") == (text, "cp1252")
    assert decode("<p>Déjà</p>".encode(), "text/html; charset=utf-8")[1] == "utf-8"
    # unlabelled UTF-8 reads as Chromium and Firefox read it off the web: as windows-1252
    assert decode("<p>Déjà</p>".encode(), "text/html") == ("<p>DÃ©jÃ\xa0</p>", "cp1252")
    assert decode('<meta charset="rot13"><p>Déjà</p>'.encode("cp1252"), "")[1] == "cp1252"
    russian = "<p>Привет, как дела? Это русский текст.</p>"
    assert decode(russian.encode("cp1251"), "text/html; charset=x-unknown") == (russian, "cp1251")
    assert decode('<meta charset="utf-16"><p>é</p>'.encode(), "") == (
        '<meta charset="utf-16"><p>é</p>',
        "utf-8",
    )
    assert decode("<p>Déjà</p>".encode("cp1252"), "text/html")[1] == "cp1252"
    assert decode(codecs.BOM_UTF8 + "é".encode(), "text/html; charset=latin-1")[0] == "é"
    assert decode("é".encode("latin-1"), "text/html; charset=nonsense")[0] == "é"


async def test_non_html_is_refused_or_kept_as_an_artifact(crawl: CrawlSite) -> None:
    async with WebClient() as web:
        with pytest.raises(TaskplateError) as caught:
            await fetch(context(web), url=crawl.url("/file.pdf"))
        assert "application/pdf, not HTML" in caught.value.message
        ctx = context(web)
        kept = await fetch(ctx, url=crawl.url("/file.pdf"), nonHtml="artifact")
    assert kept["artifactId"] and kept["content"] == "" and kept["contentType"] == "application/pdf"
    assert isinstance(ctx.artifacts, MemoryArtifacts)
    assert ctx.artifacts.items[kept["artifactId"]][1].startswith(b"%PDF")


async def test_a_page_that_needs_script_says_so(crawl: CrawlSite) -> None:
    async with WebClient() as web:
        app = await fetch(context(web), url=crawl.url("/app"))
    assert app["needsScript"] is True
    assert any("may need a browser" in w for w in app["warnings"])


async def test_robots_txt_is_obeyed_and_its_links_filtered(crawl: CrawlSite) -> None:
    crawl.reset()
    async with WebClient() as web:
        with pytest.raises(TaskplateError) as caught:
            await fetch(context(web), url=crawl.url("/private/secret"))
        assert caught.value.code == "URL_NOT_ALLOWED" and "robots.txt" in caught.value.message
        page = await fetch(context(web), url=crawl.url("/p/1"), links=True)
        assert not [u for u in page["links"] if "/private/" in u]
        split = await run_action(
            "robots", context(web), {"urls": [crawl.url("/p/2"), crawl.url("/private/x")]}
        )
    assert split == {"allowed": [crawl.url("/p/2")], "disallowed": [crawl.url("/private/x")]}
    assert not [p for p in crawl.hits if p.startswith("/private/")]
    assert crawl.hits["/robots.txt"] == 1  # read once per client


async def test_sitemaps_are_read_same_host_and_robots_filtered(
    crawl: CrawlSite, site: FixtureServer
) -> None:
    async with WebClient() as web:
        found = await run_action("sitemap", context(web), {"url": crawl.url("/p/9")})
    assert found["urls"] == [crawl.url("/"), crawl.url("/p/1"), crawl.url("/orphan")]
    async with WebClient() as web:  # a site without robots.txt or sitemap: none
        found = await run_action("sitemap", context(web), {"url": site.url("/article.html")})
    assert found == {"urls": [], "count": 0}


async def test_crawl_delay_and_the_per_host_limit_hold(crawl: CrawlSite) -> None:
    with serve_site(pages=30, crawl_delay=0.3) as slow:
        async with WebClient() as web:
            ctx = context(web)
            async with anyio.create_task_group() as tg:
                for k in range(1, 5):
                    tg.start_soon(read, ctx, slow.url(f"/p/{k}"))
        starts = [t for t, p in slow.times if p.startswith("/p/")]
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert len(starts) == 4 and min(gaps) >= 0.3, gaps  # load only makes the gaps longer

    crawl.reset()
    async with WebClient(WebConfig(host_concurrency=2, user_agent="polite-test/1")) as web:
        ctx = context(web)
        async with anyio.create_task_group() as tg:
            for k in range(1, 13):
                tg.start_soon(read, ctx, crawl.url(f"/p/{k}"))
    assert crawl.most_inflight <= 2
    assert crawl.user_agents == {"polite-test/1"}


async def test_bad_arguments_are_refused_and_nothing_stays_open(crawl: CrawlSite) -> None:
    for args in (
        {"url": ""},
        {"url": crawl.url("/"), "maxBodyBytes": 0},
        {"url": crawl.url("/"), "format": "pdf"},
        {},
    ):
        with pytest.raises(TaskplateError) as caught:
            await run_action("fetch", context(), args)
        assert caught.value.code == "INVALID_PARAMETER"
    with pytest.raises(TaskplateError) as caught:
        await run_action("fetch", context(), {"url": "ftp://127.0.0.1/x"})
    assert caught.value.code == "URL_NOT_ALLOWED" and "http(s)" in caught.value.message
    with pytest.raises(TaskplateError) as caught:  # nothing listens there
        await run_action("fetch", context(), {"url": "http://127.0.0.1:9/", "timeoutMs": 5000})
    assert caught.value.code in ("NAVIGATION_FAILED", "NAVIGATION_TIMEOUT")
    started = time.monotonic()
    page = await run_action("fetch", context(), {"url": crawl.url("/p/2")})  # its own client
    assert page["status"] == 200 and time.monotonic() - started < 60
    gc.collect()  # an unclosed client or socket would raise ResourceWarning (an error here)


class _ClosingKeepAlive:
    """A server that answers HTTP/1.1 without `Connection: close` and then closes anyway, as
    tinyproxy does: a second request on the same connection is read and met with a close."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}{path}"

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.listener.accept()
                self.connections += 1
                threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            for answered in range(2):
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    head += chunk
                if answered:  # the kept-alive connection's next request: closed unanswered
                    return
                path = head.split(b" ", 2)[1]
                status, body = (
                    (b"404 Not Found", b"")
                    if b"robots" in path
                    else (b"200 OK", b"<title>Kept</title><p>alive</p>")
                )
                conn.sendall(
                    b"HTTP/1.1 "
                    + status
                    + b"\r\nContent-Type: text/html\r\nContent-Length: "
                    + str(len(body)).encode()
                    + b"\r\n\r\n"
                    + body
                )


async def test_a_get_on_a_connection_closed_without_a_word_is_sent_again() -> None:
    """robots.txt is read first, on a connection the server answers as kept alive and then
    closes: the page's request, sent on it, gets no answer at all, and goes again on a new
    connection (as browsers do) instead of failing the read."""
    server = _ClosingKeepAlive()
    try:
        async with WebClient() as web:
            body = await web.get(server.url("/page"), 100_000)
        assert b"alive" in body.data and server.connections == 2
    finally:
        server.listener.close()


async def test_a_failed_request_is_said_in_our_words_not_httpxs() -> None:
    """An answer that is not HTTP, a refused connection: NAVIGATION_FAILED in our words; the
    exception's name and the operating system's text (Errno …) stay in the log."""
    import httpx

    from taskplate.stdlib.web._body import failure

    refused = httpx.ConnectError("[Errno 111] Connection refused")
    assert failure(refused) == "no connection could be made to the site"
    garbage = socket.socket()
    garbage.bind(("127.0.0.1", 0))
    garbage.listen()

    def answer_garbage() -> None:  # robots.txt first, then the page: every request alike
        with contextlib.suppress(OSError):
            while True:
                conn, _ = garbage.accept()
                with conn:
                    conn.recv(4096)
                    conn.sendall(b"\x00\x01 not http at all\r\n\r\n")

    threading.Thread(target=answer_garbage, daemon=True).start()
    url = f"http://127.0.0.1:{garbage.getsockname()[1]}/"
    try:
        async with WebClient() as web:
            with pytest.raises(TaskplateError) as failed:
                await web.get(url, 10_000)
    finally:
        garbage.close()
    assert failed.value.code == "NAVIGATION_FAILED", failed.value
    assert failed.value.message == f"could not read {url}: the site's answer is not valid HTTP"
