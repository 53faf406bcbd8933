"""A run's network (docs/networks.md): its proxy, for the browser and plain HTTP alike, with its
password masked; Retry-After holding a host back across both engines; the browser identity a
site sees. Against a local site and a real tinyproxy the tests start."""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterator
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.browser import (
    HostThrottle,
    Identity,
    Network,
    Proxy,
    Sessions,
    UrlPolicy,
    mask_credentials,
)
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.dsl import device_descriptor
from taskplate.stdlib import ActionContext, WebClient
from taskplate.stdlib._context import MemoryArtifacts
from tests.conftest import act
from tests.fixtures.network_site import (
    PROXY_PASSWORD,
    NetworkSite,
    free_port,
    network_site,
    tinyproxy,
)
from tests.fuzzing import fuzz_settings

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def net() -> Iterator[NetworkSite]:
    with network_site() as server:
        yield server


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[dict[str, Any]]:
    try:
        with tinyproxy(tmp_path) as running:
            yield running
    except RuntimeError as missing:
        pytest.fail(str(missing), pytrace=False)


async def _ctx(
    sessions: Sessions, network: Network, policy: UrlPolicy | None = None
) -> ActionContext:
    session = await sessions.create(network=network, policy=policy)
    return ActionContext(session=session, artifacts=MemoryArtifacts())


async def _echoed(ctx: ActionContext) -> tuple[dict[str, str], dict[str, Any]]:
    page = await ctx.page()
    headers = json.loads(await page.locator("#headers").text_content() or "{}")
    navigator = json.loads(await page.locator("#navigator").text_content() or "{}")
    return headers, navigator


def test_a_proxy_url_is_read_and_its_password_never_shown() -> None:
    proxy = Proxy.parse("http://crawler:p%40ss@proxy.corp:3128", "options.proxy")
    assert (proxy.server, proxy.username, proxy.password) == (
        "http://proxy.corp:3128",
        "crawler",
        "p@ss",
    )
    assert proxy.label == "http://crawler:***@proxy.corp:3128"
    assert "p@ss" not in proxy.label and proxy.url == "http://crawler:p%40ss@proxy.corp:3128"
    assert (
        mask_credentials("could not reach http://a:b@h:1/x") == "could not reach http://a:***@h:1/x"
    )
    with pytest.raises(TaskplateError) as bad:
        Proxy.parse("socks5://u:secret@h:1080", "options.proxy")
    assert "options.proxy" in bad.value.message and "secret" not in bad.value.message


def test_through_a_proxy_the_policy_judges_what_the_url_shows_and_resolves_only_the_bypass_list() -> (
    None
):
    asked: list[str] = []

    def resolver(host: str) -> list[str]:
        asked.append(host)
        return ["10.0.0.1"]

    proxy = Proxy.parse("http://proxy.corp:3128", "[network] proxy", bypass="intranet.corp")
    policy = UrlPolicy(TrustLevel.REMOTE, resolver=resolver, proxy=proxy)
    assert policy.refusal("https://example.org/") is None  # the proxy resolves it
    assert "private" in (policy.refusal("http://10.1.2.3/") or "")
    assert "loopback" in (policy.refusal("http://127.0.0.1:8080/") or "")
    assert "loopback" in (policy.refusal("http://localhost/") or "")
    assert "metadata" in (policy.refusal("http://metadata.google.internal/") or "")
    assert "scheme" in (policy.refusal("file:///etc/passwd") or "")
    assert asked == [] and not policy.checks_addresses("example.org")
    # a host on the bypass list goes direct: resolved and judged by its addresses, then pinned
    assert "private" in (policy.refusal("http://wiki.intranet.corp/") or "")
    assert asked == ["wiki.intranet.corp"] and policy.checks_addresses("wiki.intranet.corp")


async def test_a_page_and_plain_http_go_through_an_authenticating_proxy(
    sessions: Sessions, net: NetworkSite, proxy: dict[str, Any]
) -> None:
    network = Network(proxy=Proxy.parse(proxy["url"], "options.proxy"))
    ctx = await _ctx(sessions, network)
    await act("navigate", ctx, url=net.url("/echo"))
    headers, _ = await _echoed(ctx)
    assert "tinyproxy" in headers.get("via", ""), headers
    async with WebClient(network=network) as web:
        body = await web.get(net.url("/echo"), 100_000)
    assert b"tinyproxy" in body.data


async def test_a_proxy_that_is_down_fails_naming_it_with_its_password_masked(
    sessions: Sessions, net: NetworkSite
) -> None:
    down = Proxy.parse(
        f"http://crawler:{PROXY_PASSWORD}@127.0.0.1:{free_port()}", "[network] proxy"
    )
    ctx = await _ctx(sessions, Network(proxy=down))
    with pytest.raises(TaskplateError) as failed:
        await act("navigate", ctx, url=net.url("/echo"))
    error = failed.value
    assert error.code is ErrorCode.NAVIGATION_FAILED, error.message
    assert down.label in error.message and PROXY_PASSWORD not in json.dumps(error.to_json())
    async with WebClient(network=Network(proxy=down)) as web:
        with pytest.raises(TaskplateError) as plain:
            await web.get(net.url("/echo"), 1000)
    assert plain.value.code is ErrorCode.NAVIGATION_FAILED
    assert down.label in plain.value.message and PROXY_PASSWORD not in json.dumps(
        plain.value.to_json()
    )


async def test_retry_after_holds_the_host_back_for_both_engines_of_a_run(
    sessions: Sessions, net: NetworkSite
) -> None:
    """Plain HTTP meets the 429; the browser's next request to the host waits out its
    Retry-After (4 s) and is answered: nothing reached the host while it asked for quiet."""
    net.busy_until, net.busy_seen = None, []
    network = Network(throttle=HostThrottle(retries=0))  # the 429 is kept, not asked again
    # The browser's session and tab first: opening them may take longer than the quiet the host
    # asks for on a loaded machine (it did beside a benchmark: nothing was left to wait). The
    # quiet is 4 s, not 1: at load 11 on 2 cores, closing the HTTP client and starting the
    # navigation took longer than a second once, and the browser then had nothing to wait for.
    net.busy_s = 4
    try:
        ctx = await _ctx(sessions, network)
        await ctx.page()
        async with WebClient(network=network) as web:
            first = await web.get(net.url("/busy"), 10_000)
        assert first.status == 429 and "Retry-After" in first.notes[0]
        with anyio.fail_after(20):
            second = await act("navigate", ctx, url=net.url("/busy"))
    finally:
        net.busy_s = 1
    assert second["status"] == 200, second
    assert "had asked for quiet" in second.get("warnings", [""])[0], second
    assert [status for _, status in net.busy_seen] == [429, 200]
    assert net.busy_seen[1][0] - net.busy_seen[0][0] >= 4.0  # not before the quiet was over


def test_retry_after_is_read_as_seconds_or_a_date_and_capped() -> None:
    from taskplate.browser.traffic._throttle import retry_after_s

    assert retry_after_s("7") == 7.0
    assert retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == pytest.approx(10.0)
    assert retry_after_s("soon") is None
    throttle = HostThrottle(max_retry_after_s=5)
    note = throttle.answered("https://a.test/x", 503, "3600", 0.1)
    assert note is not None and "capped" in note and "5.0 s" in note
    assert throttle.answered("https://a.test/x", 200, "3600", 0.1) is None  # only 429 and 503


@pytest.mark.parametrize(
    "odd", ["²", "١٢", "٣", "1.5", "+5", "-1", "0x10", "1e3", "7 s", "", "Wed"]
)
def test_retry_after_other_than_ascii_digits_or_an_http_date_is_ignored(odd: str) -> None:
    from taskplate.browser.traffic._throttle import retry_after_s

    assert retry_after_s(odd) is None
    assert HostThrottle().answered("https://a.test/x", 503, odd, 0.1) is None


def test_retry_after_reads_only_ascii_digits_and_http_dates() -> None:
    from taskplate.browser.traffic._throttle import retry_after_s

    assert retry_after_s(" 12\t") == 12.0 and retry_after_s("0") == 0.0
    assert retry_after_s("9" * 5000) == float("inf")  # held to maxRetryAfterS, not an error
    assert retry_after_s("Sunday, 06-Nov-94 08:49:37 GMT", now=784111777.0) == 0.0  # RFC 850
    assert retry_after_s("Sun Nov  6 08:49:37 1994", now=784111770.0) == 7.0  # asctime: GMT
    assert retry_after_s("Fri, 31 Dec 99999 23:59:59 GMT") is None


async def test_an_odd_retry_after_is_ignored_and_every_read_of_the_page_is_answered(
    net: NetworkSite,
) -> None:
    async with WebClient(network=Network()) as web:
        for _ in range(2):
            answered = await web.get(net.url("/odd-retry"), 10_000)
            assert answered.status == 503 and not answered.notes, answered.notes


@pytest.mark.fuzz
@fuzz_settings(500)
@given(
    st.one_of(
        st.text(max_size=40),
        st.from_regex(r"[0-9]{1,30}", fullmatch=True),
        st.datetimes(timezones=st.just(datetime.UTC)).map(format_datetime),
    )
)
def test_any_retry_after_is_read_as_rfc_9110_says_or_ignored(value: str) -> None:
    from taskplate.browser.traffic._throttle import retry_after_s

    seconds = retry_after_s(value, now=0.0)
    assert seconds is None or seconds >= 0
    if value.strip(" \t").isascii() and value.strip(" \t").isdigit():
        assert seconds == float(value.strip(" \t"))
    elif seconds is not None:
        assert value.strip(" \t").isascii() and not value.strip(" \t").isdigit()  # a date
    note = HostThrottle(max_retry_after_s=5).answered("https://a.test/", 429, value, 0.1)
    assert note is None or "5.0 s" in note or "wait" in note


async def test_a_429_is_asked_again_after_its_retry_after_on_both_engines(
    sessions: Sessions, net: NetworkSite
) -> None:
    """Plain HTTP and the browser alike: the host answers 429 (Retry-After: 1), the request is
    sent again once the second has passed, and its answer is the 200; the warnings say so."""
    for engine in ("http", "browser"):
        net.busy_until, net.busy_seen = None, []
        network = Network()
        ctx = await _ctx(sessions, network)
        await ctx.page()
        with anyio.fail_after(20):
            if engine == "http":
                async with WebClient(network=network) as web:
                    body = await web.get(net.url("/busy"), 10_000)
                status, warnings = body.status, body.notes
            else:
                opened = await act("navigate", ctx, url=net.url("/busy"))
                status, warnings = opened["status"], opened["warnings"]
                assert opened["title"] == "Busy 200", opened  # the page read is the 200's
                page = await act("get_page_content", ctx, format="text")
                assert "429" not in page["content"], page
        seen = net.busy_seen
        assert [s for _, s in seen] == [429, 200], engine
        assert seen[1][0] - seen[0][0] >= 1.0, engine  # not before the host's second was over
        assert status == 200, engine
        assert any("answered 429 with Retry-After" in w for w in warnings), warnings
        assert any("again after its Retry-After (retry 1 of at most 2)" in w for w in warnings)


async def test_a_retry_after_is_kept_to_within_the_cap_the_time_left_and_the_retries() -> None:
    """A Retry-After longer than maxRetryAfterS, or than the time the request has left, is not
    waited for: the answer stands, saying why; a host that keeps answering 429 is asked again
    RETRIES times, no more."""
    asked: list[int] = []

    async def busy(after: str) -> tuple[int, int, str, list[str]]:
        asked.append(1)
        return 429, 429, after, []

    capped = HostThrottle(max_retry_after_s=5)
    status, notes = await capped.asking("https://a.test/", lambda: busy("30"))
    assert (status, len(asked)) == (429, 1) and "longer than maxRetryAfterS (5 s)" in notes[0]
    asked.clear()
    status, notes = await HostThrottle().asking("https://a.test/", lambda: busy("30"), 2.0)
    assert len(asked) == 1 and "longer than the 2.0 s left of the step's time" in notes[0]
    asked.clear()
    with anyio.fail_after(2):  # a cancel scope's deadline counts as the time left too
        status, notes = await HostThrottle().asking("https://a.test/", lambda: busy("30"))
    assert len(asked) == 1 and "left of the step's time" in notes[0]
    asked.clear()
    status, notes = await HostThrottle().asking("https://a.test/", lambda: busy("0"))
    assert len(asked) == 3 and status == 429, notes  # once, then RETRIES (2) times again
    assert "with Retry-After again: not asked again after 2 retries" in notes[-1]
    asked.clear()
    answers = iter([(503, "0"), (200, None)])  # a 503 likewise, until the host answers

    async def unavailable() -> tuple[int, int, str | None, list[str]]:
        asked.append(1)
        status, after = next(answers)
        return status, status, after, []

    status, notes = await HostThrottle().asking("https://a.test/", unavailable)
    assert (status, len(asked)) == (200, 2) and "retry 1 of at most 2" in notes[0], notes


def test_the_adaptive_delay_follows_latency_and_an_error_never_lowers_it() -> None:
    throttle = HostThrottle()
    throttle.answered("https://a.test/", 200, None, 2.0)  # target 2.0 / 4 = 0.5: halfway, 0.25
    pace = throttle._pace("https://a.test/")
    assert pace.delay == pytest.approx(0.25)
    throttle.answered("https://a.test/", 500, None, 0.0)
    assert pace.delay == pytest.approx(0.25)
    throttle.answered("https://a.test/", 200, None, 0.0)
    assert pace.delay == pytest.approx(0.125)


async def test_the_identity_reaches_the_page_and_plain_http_sends_the_same(
    sessions: Sessions, net: NetworkSite
) -> None:
    identity = Identity(
        user_agent="taskplate-test/1.0",
        locale="de-DE",
        timezone_id="Asia/Tokyo",
        viewport=(800, 600),
        extra_headers=(("X-Team", "crawl"), ("Referer", "https://ref.test/list")),
    )
    network = Network(identity=identity)
    ctx = await _ctx(sessions, network)
    await act("navigate", ctx, url=net.url("/echo"))
    headers, navigator = await _echoed(ctx)
    assert navigator == {
        "userAgent": "taskplate-test/1.0",
        "language": "de-DE",
        "timeZone": "Asia/Tokyo",
        "width": 800,
        "height": 600,
    }
    assert headers["user-agent"] == "taskplate-test/1.0" and headers["x-team"] == "crawl"
    assert headers["referer"] == "https://ref.test/list"
    assert headers["accept-language"].startswith("de-DE")
    async with WebClient(network=network) as web:
        echoed = (await web.get(net.url("/echo"), 100_000)).data
    plain = json.loads(re.search(rb"<pre id=headers[^>]*>(.*?)</pre>", echoed)[1])  # type: ignore[index]
    assert plain["user-agent"] == "taskplate-test/1.0" and plain["x-team"] == "crawl"
    assert plain["referer"] == "https://ref.test/list"
    assert plain["accept-language"] == "de-DE,de;q=0.9"


async def test_a_device_gives_its_viewport_and_agent_and_contexts_do_not_share_them(
    sessions: Sessions, net: NetworkSite
) -> None:
    iphone = device_descriptor("iPhone 13")
    identity = Identity.from_json({"device": "iPhone 13"}, iphone)
    phone = await _ctx(sessions, Network(identity=identity))
    plain = await _ctx(sessions, Network())
    await act("navigate", phone, url=net.url("/echo"))
    await act("navigate", plain, url=net.url("/echo"))
    _, on_phone = await _echoed(phone)
    _, on_plain = await _echoed(plain)
    assert on_phone["width"] == 390 and "iPhone" in on_phone["userAgent"]
    assert on_plain["width"] == 1280 and "iPhone" not in on_plain["userAgent"]


def test_a_hand_over_window_shows_the_runs_proxy_and_identity_at_the_persons_size() -> None:
    network = Network(
        proxy=Proxy.parse("http://u:p@proxy.corp:3128", "options.proxy"),
        identity=Identity(user_agent="tp", locale="de-DE", viewport=(400, 300)),
    )
    assert network.window_options() == {
        "proxy": {
            "server": "http://proxy.corp:3128",
            "bypass": "<-loopback>",
            "username": "u",
            "password": "p",
        },
        "user_agent": "tp",
        "locale": "de-DE",
    }
    assert Network().window_options() == {}


def test_the_proxy_fixture_starts_again_when_another_server_took_its_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The port the proxy fixture chose may be taken before tinyproxy binds it (by another
    test's server): the fixture knows tinyproxy by its answer and starts it on another port."""
    from tests.fixtures import network_site as fixture

    chosen = fixture.free_port
    with network_site() as other:
        taken = other.server_address[1]
        ports = iter([taken])
        monkeypatch.setattr(fixture, "free_port", lambda: next(ports, None) or chosen())
        with tinyproxy(tmp_path) as proxy:
            assert proxy["port"] != taken
            assert fixture._server_header(proxy["port"]).startswith("tinyproxy/")
