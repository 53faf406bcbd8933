"""The http engine's cookies: a profile's sent as a browser sends them (domain, path, Secure,
expiry), those answers set kept for the client's life, a logged-in page read over HTTP as in the
browser, and cookies that cannot be read refused clearly with nothing left open."""

from __future__ import annotations

import gc
import re
import ssl
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from taskplate.browser import Sessions
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib._context import ActionContext, MemoryArtifacts
from taskplate.stdlib.web._client import WebClient, WebConfig
from taskplate.stdlib.web._cookies import cookie_jar
from tests.conftest import act
from tests.fixtures.crawl_site import MappedNetwork
from tests.fixtures.https_site import NAME, HttpsFixture, serve_https
from tests.fixtures.server import PASSWORD, FixtureServer

pytestmark = pytest.mark.anyio
HOUR = 3600


def cookie(name: str, domain: str, **extra: Any) -> dict[str, Any]:
    """A cookie as a Playwright storageState holds it."""
    return {
        "name": name,
        "value": "v",
        "domain": domain,
        "path": "/",
        "expires": -1,
        "httpOnly": False,
        "secure": False,
        "sameSite": "Lax",
        **extra,
    }


PROFILE = [
    cookie("host", "example.test"),  # host-only: example.test, never its subdomains
    cookie("domain", ".example.test"),  # the domain and every host under it
    cookie("path", "example.test", path="/cookies"),
    cookie("prefix", "example.test", path="/cook"),  # /cook is no path prefix of /cookies
    cookie("elsewhere", "example.test", path="/other"),
    cookie("secure", ".example.test", secure=True),  # over https only
    cookie("tls", NAME, secure=True),
    cookie("fresh", "example.test", expires=time.time() + HOUR),
    cookie("expired", "example.test", expires=time.time() - HOUR),
    cookie("local", "localhost"),
]


def source(cookies: Sequence[Mapping[str, Any]]) -> Any:
    async def read() -> Sequence[Mapping[str, Any]]:
        return cookies

    return read


@pytest.fixture(scope="module")
def https() -> Iterator[tuple[HttpsFixture, ssl.SSLContext]]:
    with serve_https() as served:
        yield served


async def sent(web: WebClient, url: str) -> list[str]:
    body = await web.get(url, 100_000)
    found = re.search(rb"\[([^\]]*)\]", body.data)
    assert found, body.data
    return found.group(1).decode().split()


async def test_a_profiles_cookies_are_sent_as_a_browser_sends_them(
    site: FixtureServer, https: tuple[HttpsFixture, ssl.SSLContext]
) -> None:
    server, trusted = https
    port, tls_port = site.server_address[1], server.server_address[1]
    names = {"example.test", "a.example.test", "deep.a.example.test", "notexample.test", NAME}
    config = WebConfig(network=MappedNetwork(names), verify=trusted, obey_robots=False)
    async with WebClient(config, cookies=source(PROFILE)) as web:
        at = f"http://example.test:{port}"
        assert await sent(web, f"{at}/cookies") == ["domain", "fresh", "host", "path"]
        assert await sent(web, f"http://a.example.test:{port}/cookies") == ["domain"]
        assert await sent(web, f"http://deep.a.example.test:{port}/cookies") == ["domain"]
        assert await sent(web, f"http://notexample.test:{port}/cookies") == []
        assert await sent(web, f"http://localhost:{port}/cookies") == ["local"]
        assert await sent(web, f"https://{NAME}:{tls_port}/cookies") == ["tls"]


async def test_cookies_answers_set_are_kept_for_the_client(site: FixtureServer) -> None:
    """A login that sets its cookie on a redirect, a later page that sees it, a logout whose
    expired cookie removes it: as in one browser context."""
    ctx = ActionContext(artifacts=MemoryArtifacts())
    async with WebClient() as web:
        ctx.web = web
        signed_in = await act("fetch", ctx, url=site.url("/auto-login"))
        again = await act("fetch", ctx, url=site.url("/members"))
        assert "Members-only content" in again["content"]
        await act("fetch", ctx, url=site.url("/logout"))
        out = await act("fetch", ctx, url=site.url("/members"))
    assert "Members-only content" in signed_in["content"] and "sign in" in out["content"]


async def test_a_logged_in_page_reads_the_same_over_http_as_in_the_browser(
    sessions: Sessions, site: FixtureServer
) -> None:
    session = await sessions.create()
    ctx = ActionContext(session=session, artifacts=MemoryArtifacts())
    await act("navigate", ctx, url=site.url("/login"))
    await act("fill", ctx, selector="input[name=username]", value="ada")
    await act("fill", ctx, selector="input[name=password]", value=PASSWORD)
    await act("click", ctx, selector="button[type=submit]")
    await act("wait_for", ctx, selector="#welcome")
    in_browser = await act("get_page_content", ctx)
    over_http = await act("fetch", ctx, url=site.url("/members"))  # the session's cookies
    assert "Members-only content" in in_browser["content"]
    assert over_http["content"] == in_browser["content"]
    stranger = await act(
        "fetch", ActionContext(artifacts=MemoryArtifacts()), url=site.url("/members")
    )
    assert "Members-only content" not in stranger["content"]


@pytest.mark.parametrize(
    ("entries", "why"),
    [
        ([{"value": "v", "domain": "example.test"}], "no name or value"),
        ([cookie("a", "")], "no domain"),
        ([cookie("a", "example.test", expires="soon")], "path or expiry"),
        (["sid=1"], "not an object"),
    ],
)
def test_a_cookie_that_cannot_be_read_is_refused_clearly(entries: list[Any], why: str) -> None:
    with pytest.raises(TaskplateError) as caught:
        cookie_jar(entries)
    assert caught.value.code == "EXECUTION_ERROR" and why in caught.value.message
    assert caught.value.recover_hint and "dsl login" in caught.value.recover_hint


async def test_cookies_that_cannot_be_read_fail_the_read_and_leave_nothing_open(
    site: FixtureServer,
) -> None:
    async def missing() -> Sequence[Mapping[str, Any]]:
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR, "profile work cannot be read: state.json is missing"
        )

    for cookies in (missing, source([cookie("a", "")])):
        before = len(site.traffic.paths)
        async with WebClient(cookies=cookies) as web:
            ctx = ActionContext(artifacts=MemoryArtifacts(), web=web)
            with pytest.raises(TaskplateError) as caught:
                await act("fetch", ctx, url=site.url("/members"))
            assert web._client is None  # no client was made, so no connection opened
        assert caught.value.code == "EXECUTION_ERROR"
        assert len(site.traffic.paths) == before
    gc.collect()  # an unclosed client or socket would raise ResourceWarning (an error here)
