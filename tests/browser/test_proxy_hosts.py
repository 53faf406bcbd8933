"""Through a proxy, hosts are read as browsers read them before the URL policy judges them, on
both engines and after every redirect (issue 51); a proxy's refusals and its 407 are coded and
masked. Against local sites (one on 127.0.0.2, the loopback address the numbers spell) and a
real tinyproxy, which would resolve a numeric host itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.browser import Network, Proxy, Sessions, UrlPolicy, mask_credentials, url_host
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.stdlib import ActionContext
from taskplate.stdlib._context import MemoryArtifacts
from tests.conftest import act
from tests.fixtures.network_site import NetworkSite, network_site, tinyproxy
from tests.fuzzing import fuzz_settings

pytestmark = pytest.mark.anyio
LOOPBACK_FORMS = ["2130706434", "0x7f000002", "127.2", "0x7f.0.0.2"]  # 127.0.0.2
METADATA_FORMS = ["2852039166", "0xa9fea9fe", "169.254.43518", "0251.0376.0251.0376"]


@pytest.fixture(scope="module")
def home() -> Iterator[NetworkSite]:
    """The site a remote caller may read (the operator allows 127.0.0.1 by name)."""
    with network_site() as server:
        yield server


@pytest.fixture(scope="module")
def inside() -> Iterator[NetworkSite]:
    """What no remote caller may reach: a site on 127.0.0.2."""
    with network_site("127.0.0.2") as server:
        yield server


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[dict[str, Any]]:
    with tinyproxy(tmp_path) as running:
        yield running


async def _remote(sessions: Sessions, proxy: Proxy) -> ActionContext:
    policy = UrlPolicy(TrustLevel.REMOTE, allow_hosts=("127.0.0.1",), proxy=proxy)
    session = await sessions.create(network=Network(proxy=proxy), policy=policy)
    return ActionContext(session=session, artifacts=MemoryArtifacts())


async def _refused(ctx: ActionContext, action: str, url: str) -> TaskplateError:
    with pytest.raises(TaskplateError) as refused:
        await act(action, ctx, url=url)
    return refused.value


async def test_numeric_spellings_of_loopback_are_refused_through_a_proxy_on_both_engines(
    sessions: Sessions, home: NetworkSite, inside: NetworkSite, proxy: dict[str, Any]
) -> None:
    ctx = await _remote(sessions, Proxy.parse(proxy["url"], "options.proxy"))
    port = inside.server_address[1]
    assert (await act("fetch", ctx, url=home.url("/echo")))["status"] == 200  # the proxy works
    inside.echoed.clear()
    for form in LOOPBACK_FORMS:
        for action in ("fetch", "navigate"):
            error = await _refused(ctx, action, f"http://{form}:{port}/echo")
            assert error.code is ErrorCode.URL_NOT_ALLOWED, (form, action, error.message)
            assert "127.0.0.2" in error.message and "loopback" in error.message
    assert inside.echoed == []  # nothing reached it


async def test_a_redirect_to_a_numeric_metadata_or_loopback_host_is_refused_through_a_proxy(
    sessions: Sessions, home: NetworkSite, inside: NetworkSite, proxy: dict[str, Any]
) -> None:
    ctx = await _remote(sessions, Proxy.parse(proxy["url"], "[network] proxy"))
    inside.echoed.clear()
    targets = [f"http://{form}/latest/meta-data/" for form in METADATA_FORMS]
    targets += [f"http://{LOOPBACK_FORMS[0]}:{inside.server_address[1]}/echo"]
    for target in targets:
        for action in ("fetch", "navigate"):
            error = await _refused(ctx, action, home.url(f"/redirect?to={target}"))
            assert error.code is ErrorCode.URL_NOT_ALLOWED, (target, action, error.message)
            assert ("169.254.169.254" in error.message) or ("127.0.0.2" in error.message)
    assert inside.echoed == []


async def test_a_proxys_407_is_navigation_failed_naming_it_on_both_engines(
    sessions: Sessions, home: NetworkSite, proxy: dict[str, Any]
) -> None:
    """tinyproxy answers a request without credentials 407 (wrong ones: 401, as a site would)."""
    wrong = Proxy.parse(f"http://127.0.0.1:{proxy['port']}", "[network] proxy")
    session = await sessions.create(network=Network(proxy=wrong))
    ctx = ActionContext(session=session, artifacts=MemoryArtifacts())
    for action in ("fetch", "navigate"):
        error = await _refused(ctx, action, home.url("/echo"))
        assert error.code is ErrorCode.NAVIGATION_FAILED, (action, error.message)
        assert "407" in error.message and wrong.label in error.message, error.message
        assert error.details and error.details["proxy"] == wrong.label
    page = await ctx.page()
    assert page.url == "about:blank"  # the proxy's page is not left to be read


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("http://crawler:pa/ss@proxy.corp:3128", "pa/ss"),
        ("http://crawler:p@ss@proxy.corp:0", "p@ss"),
        ("http://crawler:p@s/s@proxy.corp:3128", "p@s/s"),
        ("socks5://crawler:hunter2@proxy.corp:1080", "hunter2"),
        ("http://crawler:hunter2@proxy.corp:99999", "hunter2"),
    ],
)
def test_a_refused_proxy_url_shows_none_of_its_userinfo(text: str, secret: str) -> None:
    with pytest.raises(TaskplateError) as refused:
        Proxy.parse(text, "options.proxy")
    error = refused.value
    assert error.code is ErrorCode.INVALID_PARAMETER and "options.proxy" in error.message
    shown = json.dumps(error.to_json())
    assert secret not in shown and "crawler" not in shown and "***@" in error.message


def test_a_proxy_url_with_a_control_character_or_port_0_is_refused_never_echoed() -> None:
    for text in ("http://proxy.corp:3128\r\nX-Injected: 1", "http://pro\nxy:3128", "http://p:0"):
        with pytest.raises(TaskplateError) as refused:
            Proxy.parse(text, "options.proxy")
        assert refused.value.code is ErrorCode.INVALID_PARAMETER
        assert "\r" not in refused.value.message and "\n" not in refused.value.message
        assert "Injected" not in refused.value.message
    raw_at = Proxy.parse("http://crawler:p@ss@127.0.0.1:3128", "options.proxy")
    assert (raw_at.password, raw_at.server) == ("p@ss", "http://127.0.0.1:3128")
    assert Proxy.parse("http://2130706433:3128", "x").server == "http://127.0.0.1:3128"
    assert mask_credentials("http://u:p@ss@h:1/x") == "http://u:***@h:1/x"


_OCTET = st.integers(0, 255)


@st.composite
def _spellings(draw: st.DrawFn) -> tuple[str, str]:
    """An IPv4 address and one of the spellings the standard reads as it."""
    octets = draw(st.lists(_OCTET, min_size=4, max_size=4))
    value = int.from_bytes(bytes(octets), "big")
    parts = draw(st.integers(1, 4))
    head = octets[: parts - 1]
    tail = int.from_bytes(bytes(octets[parts - 1 :]), "big")
    numbers = [*head, tail]
    forms = [lambda n: str(n), lambda n: hex(n), lambda n: "0" + oct(n)[2:] if n else "0"]
    spelt = ".".join(draw(st.sampled_from(forms))(n) for n in numbers)
    assert value >= 0
    return spelt, ".".join(map(str, octets))


@pytest.mark.fuzz
@fuzz_settings(300)
@given(_spellings())
def test_fuzzed_spellings_read_as_their_address_and_private_ones_are_refused(
    spelt_read: tuple[str, str],
) -> None:
    import ipaddress

    spelt, read = spelt_read
    assert url_host(f"http://{spelt}/") == read
    proxy = Proxy.parse("http://proxy.corp:3128", "[network] proxy")
    policy = UrlPolicy(TrustLevel.REMOTE, proxy=proxy, resolver=lambda h: [h])
    ip = ipaddress.ip_address(read)
    public = ip.is_global and not ip.is_multicast
    assert (policy.refusal(f"http://{spelt}/") is None) == public, (spelt, read)


@pytest.mark.fuzz
@fuzz_settings(300)
@given(
    st.text(st.characters(codec="utf-8"), max_size=20),
    st.text(st.characters(codec="utf-8"), max_size=20),
    st.sampled_from(["proxy.corp", "127.0.0.1", "[::1]", "2130706433", "p"]),
    st.sampled_from(["", ":0", ":3128", ":65536", ":x", ":-1"]),
)
def test_fuzzed_proxy_urls_are_taken_or_refused_never_showing_the_password(
    user: str, password: str, host: str, port: str
) -> None:
    secret = f"S3CRET{password}"
    text = f"http://{user}:{secret}@{host}{port}"
    try:
        proxy = Proxy.parse(text, "options.proxy")
    except TaskplateError as refused:
        assert refused.code is ErrorCode.INVALID_PARAMETER
        shown = json.dumps(refused.to_json())
        assert "S3CRET" not in shown
        assert not any(c in refused.message for c in "\r\n\x00")
        return
    assert "S3CRET" not in proxy.label and "S3CRET" in proxy.password
    assert proxy.server.rpartition(":")[2].isdigit() and not proxy.server.endswith(":0")
