"""Hosts read as the URL standard reads them (browser/traffic/_url_host.py), and the URL policy judging
what it reads: numeric, hex, octal and short IPv4 forms, IPv6, and what is not a host at all.

The vectors are the standard's host parser (https://url.spec.whatwg.org/#host-parsing),
written out here as its own test data (urltestdata.json) has them."""

from __future__ import annotations

import pytest

from taskplate.browser import Proxy, UrlPolicy, as_read, host_of, url_host
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel

# (URL, the host the standard reads in it; None: the URL is not one, the parser fails)
WHATWG_HOSTS = [
    ("http://0x7f.1/", "127.0.0.1"),
    ("http://0xffffffff/", "255.255.255.255"),
    ("http://4294967296/", None),
    ("http://0xffffffff1/", None),
    ("http://256.256.256.256/", None),
    ("http://192.168.0.257/", None),
    ("http://0Xc0.0250.01/", "192.168.0.1"),
    ("http://%30%78%63%30%2e%30%32%35%30.01/", "192.168.0.1"),
    (
        "http://\uff10\uff38\uff43\uff10\uff0e\uff10\uff12\uff15\uff10\uff0e\uff10\uff11/",
        "192.168.0.1",
    ),
    ("http://192.168.0.1 hello/", None),
    ("http://1.2.3.4.5/", None),
    ("http://1.2.3.09/", None),
    ("http://09.2.3.4/", None),
    ("http://foo.09/", None),
    ("http://foo.0x4/", None),
    ("http://0x100.2.3.4/", None),
    ("http://0..0x300/", None),
    ("http://1.2.3.4./", "1.2.3.4"),
    ("http://017700000001/", "127.0.0.1"),
    ("http://127.000.000.001/", "127.0.0.1"),
    ("http://[::127.0.0.1]/", "::7f00:1"),
    ("http://[0:0:0:0:0:0:13.1.68.3]/", "::d01:4403"),
    ("http://[1:0::]/", "1::"),
    ("http://[::1.2.3.]/", None),
    ("http://[fe80::1%25eth0]/", None),
    ("http://a%2Fb/", None),
    ("HTTP://EXAMPLE.org./", "example.org."),
    ("http://b\u00fccher.ch/", "xn--bcher-kva.ch"),
    ("http://user@2130706433@evil.test/", "evil.test"),  # the last @ ends the userinfo
    ("http:/\\\\2130706433/x", "127.0.0.1"),  # \ is / in an http URL
    ("about:blank", ""),
]

# The issue's spellings: each reads as the dotted quad a policy refuses.
ISSUE_FORMS = [
    ("2130706434", "127.0.0.2", "loopback"),
    ("0x7f000002", "127.0.0.2", "loopback"),
    ("127.2", "127.0.0.2", "loopback"),
    ("0x7f.0.0.2", "127.0.0.2", "loopback"),
    ("167838211", "10.1.2.3", "private"),
    ("2852039166", "169.254.169.254", "link-local"),
    ("3232255233", "192.168.77.1", "private"),
    ("0", "0.0.0.0", "reserved"),
    ("[::ffff:169.254.169.254]", "::ffff:a9fe:a9fe", "link-local"),
    ("[::1]", "::1", "loopback"),
]


@pytest.mark.parametrize(("url", "host"), WHATWG_HOSTS)
def test_a_urls_host_is_read_as_the_url_standard_reads_it(url: str, host: str | None) -> None:
    assert url_host(url) == host


@pytest.mark.parametrize(("spelt", "read", "_why"), ISSUE_FORMS)
def test_every_spelling_of_an_address_reads_as_its_dotted_quad(
    spelt: str, read: str, _why: str
) -> None:
    assert url_host(f"http://{spelt}:8080/latest/meta-data/") == read
    assert host_of(spelt) == read
    shown = f"[{read}]" if ":" in read else read
    assert as_read(f"http://{spelt}:8080/latest/meta-data/") == (
        f"http://{shown}:8080/latest/meta-data/"
    )


def test_a_bare_host_with_what_no_host_holds_is_none() -> None:
    for bad in ("", "a/b", "a@b", "a b", "a\r\nb", "a?b", "a#b", "a\\b", "1.2.3.4.5"):
        assert host_of(bad) is None, bad


@pytest.mark.parametrize(("spelt", "read", "why"), ISSUE_FORMS)
def test_the_policy_refuses_every_spelling_through_a_proxy_and_without(
    spelt: str, read: str, why: str
) -> None:
    """Through a proxy nothing is resolved: the policy must read the number itself."""
    proxy = Proxy.parse("http://proxy.corp:3128", "[network] proxy")
    asked: list[str] = []

    def resolver(host: str) -> list[str]:
        asked.append(host)
        return [host]  # a literal resolves to itself, as getaddrinfo answers it

    for through in (proxy, None):
        policy = UrlPolicy(TrustLevel.REMOTE, resolver=resolver, proxy=through)
        refusal = policy.refusal(f"http://{spelt}/latest/meta-data/")
        assert refusal is not None and why in refusal and read in refusal, refusal
    with pytest.raises(TaskplateError) as refused:  # a direct connection, pinned
        UrlPolicy(TrustLevel.REMOTE, resolver=resolver).connect_to(spelt)
    assert refused.value.code is ErrorCode.URL_NOT_ALLOWED
    assert set(asked) <= {read}  # the number itself never reaches a resolver


def test_the_operators_lists_match_a_host_however_it_is_spelt() -> None:
    denied = UrlPolicy(TrustLevel.LOCAL, deny_hosts=("127.0.0.2",))
    assert "denied" in (denied.refusal("http://2130706434/") or "")
    allowed = UrlPolicy(TrustLevel.REMOTE, allow_hosts=("127.0.0.1",), resolver=lambda h: [h])
    assert allowed.refusal("http://0x7f.1/") is None
    bypass = Proxy.parse("http://proxy.corp:3128", "[network] proxy", bypass="127.0.0.1")
    assert bypass.goes_direct("2130706433") and bypass.goes_direct("0x7f.0.0.1")
    assert not bypass.goes_direct("127.0.0.2")


def test_a_url_no_browser_opens_is_refused_when_the_policy_is_enforced() -> None:
    remote = UrlPolicy(TrustLevel.REMOTE, resolver=lambda h: ["93.184.215.14"])
    assert "not a valid URL" in (remote.refusal("http://1.2.3.4.5/") or "")
    assert "not a valid URL" in (remote.refusal("http://[fe80::1%25eth0]/") or "")
    assert remote.refusal("http://example.org/") is None
    assert UrlPolicy(TrustLevel.LOCAL).refusal("http://1.2.3.4.5/") is None  # local: as before
