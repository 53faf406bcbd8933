"""The URL policy: what remote callers may open, unit-tested and then through real Chromium."""

from __future__ import annotations

import anyio
import pytest

from taskplate.browser import Sessions, UrlPolicy
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.stdlib._context import ActionContext
from tests.conftest import act, fake_dns
from tests.fixtures.server import FixtureServer


def remote(**kw: object) -> UrlPolicy:
    return UrlPolicy(TrustLevel.REMOTE, resolver=fake_dns, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("file:///etc/passwd", 'the scheme "file:"'),
        ("ftp://example.com/x", 'the scheme "ftp:"'),
        ("javascript:alert(1)", 'the scheme "javascript:"'),
        ("http://127.0.0.1:8080/", "a loopback address"),
        ("http://localhost/", "a loopback address"),
        ("http://[::1]/", "a loopback address"),
        ("http://[::ffff:127.0.0.1]/", "a loopback address"),
        ("http://169.254.169.254/latest/meta-data/", "a link-local (metadata) address"),
        ("http://metadata.google.internal/", "cloud metadata host"),
        ("http://10.0.0.1/", "a private address"),
        ("http://192.168.1.1/", "a private address"),
        ("http://172.16.5.4/", "a private address"),
        ("http://private.test/", "resolves to 10.1.2.3, a private address"),
        ("http://224.0.0.1/", "a multicast address"),
        ("http://0.0.0.0/", "a reserved address"),
        ("http://no-such-host.invalid/", "does not resolve"),
    ],
)
def test_remote_refusals_say_why(url: str, why: str) -> None:
    policy = remote()
    assert why in (policy.refusal(url) or "")
    with pytest.raises(TaskplateError) as caught:
        policy.check(url)
    assert caught.value.code is ErrorCode.URL_NOT_ALLOWED and caught.value.recover_hint


def test_public_hosts_pass_and_operators_can_allow_or_deny() -> None:
    assert remote().refusal("https://public.test/a") is None
    assert remote(allow_hosts=("127.0.0.1",)).refusal("http://127.0.0.1:9/") is None
    assert "denied by the operator" in (
        remote(deny_hosts=("*.test",)).refusal("https://public.test/") or ""
    )
    local = UrlPolicy(TrustLevel.LOCAL, deny_hosts=("bad.example",))
    assert local.refusal("file:///etc/hosts") is None and local.refusal("http://127.0.0.1/") is None
    assert "denied" in (local.refusal("https://bad.example/") or "")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "target",
    [
        "file:///etc/passwd",
        "http://127.0.0.1:{port}/article.html",
        "http://169.254.169.254/latest/meta-data/",
        "http://private.test/article.html",
    ],
)
async def test_remote_navigation_is_refused(
    remote_ctx: ActionContext, site: FixtureServer, target: str
) -> None:
    url = target.format(port=site.server_address[1])
    before = len(site.traffic.paths)
    with pytest.raises(TaskplateError) as caught:
        await act("navigate", remote_ctx, url=url)
    assert caught.value.code is ErrorCode.URL_NOT_ALLOWED
    assert len(site.traffic.paths) == before  # nothing reached the server


@pytest.mark.anyio
async def test_public_page_redirecting_to_loopback_is_refused(
    remote_ctx: ActionContext, site: FixtureServer
) -> None:
    ok = await act("navigate", remote_ctx, url="http://public.test/article.html")
    assert ok["status"] == 200
    loopback = site.url("/recipe.html")
    requests_before = site.traffic.paths.count("/recipe.html")
    with pytest.raises(TaskplateError) as caught:
        await act("navigate", remote_ctx, url=f"http://public.test/redirect?to={loopback}")
    assert caught.value.code is ErrorCode.URL_NOT_ALLOWED
    assert "127.0.0.1" in caught.value.message and "loopback" in caught.value.message
    assert site.traffic.paths.count("/recipe.html") == requests_before  # the hop was never sent
    # The refused load's error page comes a moment later; the tab's next page is not cut short.
    again = await act("navigate", remote_ctx, url="http://public.test/article.html")
    assert again["status"] == 200 and again["title"] == ok["title"]


@pytest.mark.anyio
async def test_script_navigation_and_subresources_to_loopback_are_blocked(
    remote_ctx: ActionContext, site: FixtureServer
) -> None:
    await act("navigate", remote_ctx, url="http://public.test/article.html")
    before = site.traffic.paths.count("/recipe.html")
    loopback = site.url("/recipe.html")
    page = await remote_ctx.page()
    # The navigation starts once evaluate has answered: its document may be gone at once.
    await page.evaluate(
        f"() => {{ const i = new Image(); i.src = '{loopback}?img';"
        f" setTimeout(() => {{ location.href = '{loopback}'; }}, 0); }}"
    )
    await act("wait", remote_ctx, ms=300)
    assert site.traffic.paths.count("/recipe.html") == before  # neither request was sent
    assert not (await act("get_page_info", remote_ctx))["url"].startswith(site.base)
    refused = None  # the error page it shows, once the browser has got there, is not content
    with anyio.fail_after(10):
        while refused is None:
            try:
                await act("get_page_content", remote_ctx)
            except TaskplateError as error:
                refused = error
            await anyio.sleep(0.05)
    assert refused.code is ErrorCode.URL_NOT_ALLOWED and loopback in refused.message


@pytest.mark.anyio
async def test_remote_tabs_and_downloads_check_urls_too(
    remote_ctx: ActionContext, site: FixtureServer
) -> None:
    for action, args in (
        ("create_tab", {"url": site.url("/article.html")}),
        ("download", {"url": site.url("/report.txt")}),
    ):
        with pytest.raises(TaskplateError) as caught:
            await act(action, remote_ctx, **args)
        assert caught.value.code is ErrorCode.URL_NOT_ALLOWED, action


@pytest.mark.anyio
async def test_allow_hosts_lets_an_operator_open_an_internal_host(
    sessions: Sessions, site: FixtureServer
) -> None:
    session = await sessions.create(policy=remote(allow_hosts=("127.0.0.1",)))
    ctx = ActionContext(session=session, trust=TrustLevel.REMOTE)
    assert (await act("navigate", ctx, url=site.url("/article.html")))["status"] == 200


@pytest.mark.anyio
async def test_local_callers_may_open_loopback_and_files(
    ctx: ActionContext, site: FixtureServer
) -> None:
    assert (await act("navigate", ctx, url=site.url("/article.html")))["status"] == 200
    file_result = await act("navigate", ctx, url="file:///etc/hostname")
    assert file_result["url"] == "file:///etc/hostname"


def test_a_connection_goes_to_the_addresses_the_check_resolved() -> None:
    """The DNS answer is asked once per policy: the check's addresses are where connections go,
    so a name that later answers 127.0.0.1 (DNS rebinding) is never asked again."""
    answers = [["93.184.216.34"], ["127.0.0.1"]]
    asked: list[str] = []

    def changing(host: str) -> list[str]:
        asked.append(host)
        return answers.pop(0) if len(answers) > 1 else answers[0]

    policy = UrlPolicy(TrustLevel.REMOTE, resolver=changing, allow_hosts=("allowed.test",))
    assert policy.refusal("http://rebind.test/") is None
    assert (
        policy.connect_to("rebind.test") == ["93.184.216.34"] == policy.connect_to("REBIND.test.")
    )
    assert asked == ["rebind.test"]
    assert policy.connect_to("allowed.test") == ["allowed.test"]  # by name: the operator's host
    assert UrlPolicy(resolver=changing).connect_to("rebind.test") == ["rebind.test"]  # local
    assert asked == ["rebind.test"]
    for policy, host, why in (
        (remote(), "private.test", "resolves to 10.1.2.3, a private address"),
        (remote(), "metadata.google.internal", "cloud metadata host"),
        (UrlPolicy(deny_hosts=("*.test",)), "public.test", "denied by the operator"),
    ):
        with pytest.raises(TaskplateError) as caught:
            policy.connect_to(host)
        assert caught.value.code is ErrorCode.URL_NOT_ALLOWED and why in caught.value.message
