"""A run's network settled from its options (docs/networks.md): the caller's proxy kept masked
and, for remote callers, only one the operator allows; options.browser only within what the
template lets callers set."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.browser import BrowserRuntime
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.dsl import forbidden_header
from taskplate.dsl._model import build_template
from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary
from taskplate.interpreter.runs._network import operator_network, run_network
from taskplate.stdlib import REGISTRY
from tests.fixtures.network_site import PROXY_PASSWORD, network_site, tinyproxy
from tests.fuzzing import fuzz_settings

pytestmark = pytest.mark.anyio

ALLOWED = {"allow_proxies": ["http://ops:opspass@proxy.corp:3128"], "max_retry_after_s": 30}


def _template(browser: dict[str, object] | None = None) -> object:
    data = {"template": "t", "version": "1.0.0", "steps": [{"id": "a", "action": "wait"}]}
    template, _ = build_template(data | ({"browser": browser} if browser else {}))
    return template


def test_the_callers_proxy_is_kept_masked_and_used_whole() -> None:
    options = {"proxy": "http://me:hunter2@proxy.local:8080"}
    network = run_network(_template(), options, TrustLevel.LOCAL, {})  # type: ignore[arg-type]
    assert options["proxy"] == "http://me:***@proxy.local:8080"
    assert network.proxy is not None and network.proxy.password == "hunter2"
    assert network.secrets == ["hunter2", "bWU6aHVudGVyMg=="]  # and the Basic token, me:hunter2


def test_a_remote_caller_may_name_only_a_proxy_the_operator_allows() -> None:
    with pytest.raises(TaskplateError) as refused:
        run_network(_template(), {"proxy": "http://evil:1/"}, TrustLevel.REMOTE, ALLOWED)  # type: ignore[arg-type]
    assert refused.value.code is ErrorCode.INVALID_PARAMETER
    assert "options.proxy" in refused.value.message
    named = run_network(
        _template(), {"proxy": "http://proxy.corp:3128"}, TrustLevel.REMOTE, ALLOWED
    )  # type: ignore[arg-type]
    assert named.proxy is not None and named.proxy.username == "ops"  # the operator's credentials
    assert named.throttle.max_retry_after_s == 30


def test_the_operators_proxy_comes_from_the_environment_when_the_data_home_names_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://u:p@envproxy:3128")
    monkeypatch.setenv("NO_PROXY", "intranet.corp")
    proxy = operator_network({}).proxy
    assert proxy is not None and proxy.server == "http://envproxy:3128"
    assert proxy.goes_direct("wiki.intranet.corp") and not proxy.goes_direct("example.org")
    toml = operator_network({"proxy": "http://toml:3128"}).proxy
    assert toml is not None and toml.server == "http://toml:3128"


def test_a_profile_may_have_a_proxy_of_its_own() -> None:
    settings = {"proxy": "http://all:3128", "profiles": {"work": {"proxy": "http://work:3128"}}}
    work = run_network(_template(), {}, TrustLevel.LOCAL, settings, profile_id="work")  # type: ignore[arg-type]
    other = run_network(_template(), {}, TrustLevel.LOCAL, settings, profile_id="home")  # type: ignore[arg-type]
    assert work.proxy is not None and work.proxy.server == "http://work:3128"
    assert other.proxy is not None and other.proxy.server == "http://all:3128"


def test_options_browser_sets_only_what_the_template_lets_callers_set() -> None:
    template = _template({"locale": "en-US", "userAgent": "tp", "callerMaySet": ["locale"]})
    network = run_network(template, {"browser": {"locale": "fr-FR"}}, TrustLevel.REMOTE, {})  # type: ignore[arg-type]
    assert (network.identity.locale, network.identity.user_agent) == ("fr-FR", "tp")
    with pytest.raises(TaskplateError) as refused:
        run_network(template, {"browser": {"userAgent": "x"}}, TrustLevel.LOCAL, {})  # type: ignore[arg-type]
    assert "callerMaySet" not in refused.value.message and "userAgent" in refused.value.message
    with pytest.raises(TaskplateError) as bad:
        run_network(template, {"browser": {"locale": "not a locale"}}, TrustLevel.LOCAL, {})  # type: ignore[arg-type]
    assert "options.browser" in bad.value.message


def test_a_callers_time_zone_is_checked_before_the_run_as_an_iana_name() -> None:
    template = _template({"callerMaySet": ["timezoneId"]})
    for zone in ("Mars/Olympus", "UTC+2", "Europe/berlin", "../../etc/passwd"):
        with pytest.raises(TaskplateError) as refused:
            run_network(template, {"browser": {"timezoneId": zone}}, TrustLevel.REMOTE, {})  # type: ignore[arg-type]
        assert refused.value.code is ErrorCode.INVALID_PARAMETER
        assert "options.browser.timezoneId" in refused.value.message
        assert "IANA" in refused.value.message and refused.value.recover_hint
    kept = run_network(template, {"browser": {"timezoneId": "Asia/Tokyo"}}, TrustLevel.REMOTE, {})  # type: ignore[arg-type]
    assert kept.identity.timezone_id == "Asia/Tokyo"


FORBIDDEN = [
    "Host",
    "Proxy-Authorization",
    "Transfer-Encoding",
    "Connection",
    "Cookie",
    "content-length",
    "Sec-Fetch-Site",
    "proxy-connection",
    "X-HTTP-Method-Override",
]


@pytest.mark.parametrize("header", FORBIDDEN)
def test_a_forbidden_extra_header_is_refused_alike_whichever_engine_the_run_uses(
    header: str,
) -> None:
    """One check before the run for both engines: the browser would refuse the header, plain
    HTTP would have sent it as given."""
    said = set()
    for step in (
        {"id": "a", "action": "navigate", "with": {"url": "https://example.com"}},
        {"id": "a", "action": "fetch", "with": {"url": "https://example.com"}},
    ):
        data = {
            "template": "t",
            "version": "1.0.0",
            "steps": [step],
            "browser": {"callerMaySet": ["extraHeaders"]},
        }
        template, _ = build_template(data)
        with pytest.raises(TaskplateError) as refused:
            run_network(
                template, {"browser": {"extraHeaders": {header: "x"}}}, TrustLevel.REMOTE, {}
            )  # type: ignore[arg-type]
        assert refused.value.code is ErrorCode.INVALID_PARAMETER
        said.add(refused.value.message)
    assert len(said) == 1 and f'"{header}" is a header only the browser sets' in said.pop()


@pytest.mark.parametrize("value", ["café", "a\r\nX-Injected: 1", " padded", "nul\x00", "tab\t"])
def test_an_extra_header_value_other_than_printable_ascii_is_refused(value: str) -> None:
    template = _template({"callerMaySet": ["extraHeaders"]})
    with pytest.raises(TaskplateError) as refused:
        run_network(
            template, {"browser": {"extraHeaders": {"X-Team": value}}}, TrustLevel.REMOTE, {}
        )  # type: ignore[arg-type]
    assert refused.value.code is ErrorCode.INVALID_PARAMETER
    assert "printable ASCII" in refused.value.message
    fine = run_network(
        template, {"browser": {"extraHeaders": {"X-Team": "a b\tc"}}}, TrustLevel.REMOTE, {}
    )  # type: ignore[arg-type]
    assert fine.identity.http_headers() == {"X-Team": "a b\tc"}


def test_a_device_named_by_the_template_brings_its_descriptor() -> None:
    network = run_network(_template({"device": "Pixel 7"}), {}, TrustLevel.LOCAL, {})  # type: ignore[arg-type]
    options = network.identity.context_options()
    assert options["is_mobile"] is True and "Pixel 7" in options["user_agent"]


async def test_a_runs_proxy_and_identity_reach_both_engines_and_its_row_keeps_the_proxy_masked(
    tmp_path: Path, runtime: BrowserRuntime, caplog: pytest.LogCaptureFixture
) -> None:
    template = _template({"locale": "de-DE", "callerMaySet": ["userAgent"]})
    template.steps = build_template(  # type: ignore[attr-defined]
        {
            "template": "t",
            "version": "1.0.0",
            "steps": [
                {"id": "plain", "action": "fetch", "with": {"url": "${{ inputs.url }}"}},
                {"id": "page", "action": "navigate", "with": {"url": "${{ inputs.url }}"}},
            ],
        }
    )[0].steps
    manager = RunManager(tmp_path / "home", TemplateLibrary(REGISTRY), runtime=runtime)
    with network_site() as net, tinyproxy(tmp_path) as proxy:
        async with manager.running():
            options = {
                "proxy": proxy["url"],
                "browser": {"userAgent": "run-agent/2"},
                "trace": "on",
            }
            run_id = await manager.submit(
                "t",
                {"url": net.url("/echo")},
                template=template,
                options=options,  # type: ignore[arg-type]
            )
            with anyio.fail_after(60):
                answer = await manager.wait(run_id)
            row = await manager.row(run_id)
            described = await manager.describe(run_id, include_steps=True)
            assert answer["status"] == "succeeded", (answer.get("error"), answer["result"])
            traces = [a for a in described["artifacts"] if a["name"] == "trace.zip"]
            assert len(traces) == 1, (described["artifacts"], caplog.text[-2000:])
            traced = (await manager.artifacts.read(traces[0]["artifactId"])).data
            await manager.sessions.close_all()
    assert len(net.echoed) == 2, net.echoed  # the fetch, then the page
    for headers in net.echoed:
        assert "tinyproxy" in headers.get("via", ""), headers
        assert headers["user-agent"] == "run-agent/2"
        assert headers["accept-language"].startswith("de-DE")
    assert row.options["proxy"] == f"http://crawler:***@127.0.0.1:{proxy['port']}"
    token = base64.b64encode(f"crawler:{PROXY_PASSWORD}".encode())
    assert PROXY_PASSWORD not in json.dumps(row.options) + json.dumps(described)
    with zipfile.ZipFile(io.BytesIO(traced)) as kept:
        text = b"".join(kept.read(name) for name in kept.namelist())
    assert PROXY_PASSWORD.encode() not in text and token not in text


@pytest.mark.parametrize("engine", ["http", "browser", "auto"])
async def test_a_page_that_answers_429_is_read_again_after_its_retry_after(
    tmp_path: Path, runtime: BrowserRuntime, engine: str
) -> None:
    """batch_extract_pages over two pages of a host that answers 429 (Retry-After: 1) for a
    second, one after the other: the first page is asked again once the second has passed and
    read (issue 53: the run failed, or engine auto went to the browser without a word); its
    item's warnings say the host asked for quiet and that it was asked again."""
    manager = RunManager(
        tmp_path / "home", TemplateLibrary(REGISTRY).load([SHIPPED]), runtime=runtime
    )
    with network_site() as net:
        async with manager.running():
            urls = [net.url("/busy?page=1"), net.url("/busy?page=2")]
            inputs = {"urls": urls, "engine": engine, "concurrency": 1}
            run_id = await manager.submit("batch_extract_pages", inputs)
            with anyio.fail_after(60):
                answer = await manager.wait(run_id)
    # Over HTTP both pages are asked at once (the loop runs 3 * concurrency of them): both
    # meet the 429, both are asked again. Nothing was asked again before the second was over.
    seen = [status for _, status in net.busy_seen]
    assert seen[0] == 429 and seen == sorted(seen, reverse=True) and seen[-1] == 200, seen
    first_200 = next(when for when, status in net.busy_seen if status == 200)
    assert first_200 - net.busy_seen[0][0] >= 1.0, net.busy_seen
    assert answer["status"] == "succeeded", answer.get("error")
    first, second = answer["result"]["items"]
    assert first["status"] == 200 and second["status"] == 200, first
    assert first["title"] == "Busy 200" and "429" not in first["content"], first
    warned = first["warnings"]
    assert any("answered 429 with Retry-After" in w for w in warned), json.dumps([first, second])
    assert any("again after its Retry-After (retry 1 of at most 2)" in w for w in warned), first


HEADER_NAMES = st.one_of(
    st.sampled_from([*FORBIDDEN, "X-Team", "Accept", "Referer", "sec-", "Proxy-", "DNT", "te"]),
    st.text(alphabet="!#$%&'*+.^_`|~0123456789abcXYZ-", min_size=1, max_size=12),
)


@pytest.mark.fuzz
@fuzz_settings(300)
@given(st.dictionaries(HEADER_NAMES, st.text(max_size=12), max_size=4))
def test_any_extra_headers_are_refused_with_a_code_or_sent_alike_by_both_engines(
    headers: dict[str, str],
) -> None:
    """Whatever a caller's extraHeaders: a coded refusal, or headers every engine sends as
    given (none forbidden, every value printable ASCII, so plain HTTP encodes it too)."""
    import httpx

    template = _template({"callerMaySet": ["extraHeaders"]})
    options = {"browser": {"extraHeaders": headers}}
    try:
        network = run_network(template, options, TrustLevel.REMOTE, {})  # type: ignore[arg-type]
    except TaskplateError as refused:
        assert refused.code is ErrorCode.INVALID_PARAMETER and refused.recover_hint
        return
    sent = network.identity.http_headers()
    assert sent == dict(network.identity.context_options().get("extra_http_headers", {}))
    for name, value in sent.items():
        assert not forbidden_header(name)
        value.encode("ascii")
        assert "\r" not in value and "\n" not in value and value == value.strip()
    httpx.Request("GET", "http://127.0.0.1/", headers=sent)  # plain HTTP takes them
