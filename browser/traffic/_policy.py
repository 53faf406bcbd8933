"""URL policy for remote callers (SPEC §5): http(s) only, and no loopback, private, link-local,
multicast or metadata address after DNS resolution. Knows no templates or pages.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import anyio

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel

from ._network import Proxy
from ._url_host import host_of, url_host

Resolver = Callable[[str], list[str]]
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata", "instance-data"})
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_HINT = "Use a public http(s) URL, or ask the operator to allow the host (allowHosts)."


def system_resolver(host: str) -> list[str]:
    """Every address the host resolves to (an IP literal resolves to itself)."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        return []
    return sorted({str(info[4][0]) for info in infos})


def redirect_elsewhere(url: str, location: str) -> str | None:
    """Where a redirect from `url` to `location` leads when it is not an http(s) URL
    (javascript:, data:, file:), which no reader follows; None for an http(s) one."""
    target = urljoin(url, location.strip())
    return target if urlsplit(target).scheme.lower() not in ("http", "https") else None


def _forbidden(address: str) -> str | None:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "an unparsable address"
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv4 address inside an IPv6 one (mapped, 6to4, NAT64) is judged as that address.
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is None and ip in _NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        ip = inner or ip
    checks = (
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "a link-local (metadata) address"),
        (ip.is_unspecified or ip.is_reserved, "a reserved address"),
        (ip.is_multicast, "a multicast address"),
        (ip.is_private, "a private address"),
        # Shared (100.64.0.0/10, where some clouds keep their metadata), benchmarking, …
        (not ip.is_global, "a non-public address"),
    )
    return next((why for hit, why in checks if hit), None)


def _read_host(host: str) -> str:
    """A bare host (a connection's) as `url_host` reads URLs' hosts; '' when it is no host."""
    return (host_of(host) or "").rstrip(".")


def _matches(host: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatch(host, p.lower()) for p in patterns)


def _seen_through_proxy(host: str) -> str | None:
    """Why a host is refused without resolving it (the proxy resolves it): a literal address
    that is not public, or a loopback name."""
    if host == "localhost" or host.endswith(".localhost"):
        return f'"{host}" is a loopback name'
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    why = _forbidden(host.strip("[]"))
    return f'"{host}" is {why}' if why else None


@dataclass
class UrlPolicy:
    """Which URLs a caller of a trust level may open; `check` raises URL_NOT_ALLOWED."""

    trust: TrustLevel = TrustLevel.LOCAL
    allow_hosts: tuple[str, ...] = ()
    deny_hosts: tuple[str, ...] = ()
    resolver: Resolver = system_resolver
    # The proxy requests go through, which resolves their names: for a host it serves (not on
    # its bypass list), what is refused here is what the URL shows (schemes, literal addresses,
    # loopback and metadata names, denied hosts); the proxy must refuse the rest (networks.md).
    proxy: Proxy | None = None
    # Each host's verdict and the addresses it was made on, resolved once for the policy's life
    # (a run's): a connection goes to those addresses (`connect_to`), never to a later answer.
    _cache: dict[str, tuple[str | None, tuple[str, ...]]] = field(default_factory=dict, repr=False)

    def _through_proxy(self, host: str) -> bool:
        return self.proxy is not None and not self.proxy.goes_direct(host)

    @property
    def enforced(self) -> bool:
        return self.trust is TrustLevel.REMOTE or bool(self.deny_hosts)

    def refusal(self, url: str) -> str | None:
        """Why the URL is refused, or None when it may be opened. Its host is read as a browser
        reads it (`url_host`: `http://2130706433/` is 127.0.0.1) before anything is judged."""
        scheme, read = urlsplit(url).scheme.lower(), url_host(url)
        if scheme in ("about", "data", "blob") and self.trust is TrustLevel.LOCAL:
            return None
        if read is None:
            # Not a URL a browser opens: nothing to judge it by, so refused when anything is.
            return "it is not a valid URL" if self.enforced else None
        host = read.rstrip(".")
        if host and _matches(host, self.deny_hosts):
            return f'the host "{host}" is denied by the operator'
        if self.trust is TrustLevel.LOCAL:
            return None
        if scheme in ("about",) and url.startswith("about:blank"):
            return None
        if scheme not in ("http", "https"):
            return f'the scheme "{scheme}:" is not allowed for remote callers (http and https only)'
        if not host:
            return "the URL has no host"
        if _matches(host, self.allow_hosts):
            return None
        return self._verdict(host)[0]

    def _verdict(self, host: str) -> tuple[str | None, tuple[str, ...]]:
        """(why the host is refused or None, the addresses it resolved to), asked once."""
        if host not in self._cache:
            verdict = self._resolve(host)
            self._cache.setdefault(host, verdict)  # two look-ups at once: the first one stands
        return self._cache[host]

    def _resolve(self, host: str) -> tuple[str | None, tuple[str, ...]]:
        if host in METADATA_HOSTS:
            return f'"{host}" is a cloud metadata host', ()
        if self._through_proxy(host):
            return _seen_through_proxy(host), ()
        addresses = tuple(self.resolver(host))
        if not addresses:
            return f'the host "{host}" does not resolve', ()
        for address in addresses:
            why = _forbidden(address)
            if why:
                return f'"{host}" resolves to {address}, {why}', addresses
        return None, addresses

    def checks_addresses(self, host: str) -> bool:
        """Whether a connection to `host` must go to an address this policy checked: for remote
        callers, but not to a host the operator allowed by name."""
        host = _read_host(host)
        return (
            self.trust is TrustLevel.REMOTE
            and not self._through_proxy(host)
            and not _matches(host, self.allow_hosts)
        )

    def connect_to(self, host: str) -> list[str]:
        """Where a connection to `host` may go: the addresses its check resolved, so a name that
        answers differently later (DNS rebinding) cannot lead the connection elsewhere; the name
        itself when this policy checks no addresses. URL_NOT_ALLOWED when the host is refused."""
        given, host = host, _read_host(host)
        why = (
            f'the host "{host}" is denied by the operator'
            if _matches(host, self.deny_hosts)
            else None
        )
        if not host and self.enforced:
            why = f'"{given[:100]}" is not a host'
        addresses: tuple[str, ...] = (host or given,)
        if why is None and self.checks_addresses(host):
            why, addresses = self._verdict(host)
        if why:
            raise TaskplateError(
                ErrorCode.URL_NOT_ALLOWED,
                f"a connection to {host or 'that host'} is not allowed: {why}",
                _HINT,
                {"host": host},
            )
        return list(addresses)

    async def connect_to_async(self, host: str) -> list[str]:
        """`connect_to`, with a DNS look-up (on a cache miss) in a worker thread."""
        key = _read_host(host)
        if key not in self._cache and self.checks_addresses(key):
            await anyio.to_thread.run_sync(self._verdict, key)
        return self.connect_to(host)

    async def refusal_async(self, url: str) -> str | None:
        """`refusal`, with a DNS look-up (on a cache miss) in a worker thread."""
        host = (url_host(url) or "").rstrip(".")
        if self.trust is TrustLevel.REMOTE and host and host not in self._cache:
            await anyio.to_thread.run_sync(self.refusal, url)
        return self.refusal(url)

    def check(self, url: str) -> None:
        why = self.refusal(url)
        if why:
            raise TaskplateError(
                ErrorCode.URL_NOT_ALLOWED, f"{url} is not allowed: {why}", _HINT, {"url": url}
            )
