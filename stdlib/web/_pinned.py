"""Connections of the http engine go to the addresses the URL policy checked: the name is resolved
once, for the check, and never again by the connection (the DNS-rebinding gap of httpx's own look-up).

TLS still names the host (SNI, certificate check): only the TCP connection is pinned. Knows no URLs.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import httpcore
import httpx

# The certificate store read once a process, not once a run: loading it took 38 ms of CPU (a
# batch of 50 local pages read over HTTP takes about 500). Client contexts are safe to share.
_DEFAULT_TLS = functools.cache(lambda: httpx.create_ssl_context(verify=True))
ConnectTo = Callable[[str], Awaitable[list[str]]]  # a host's addresses (or its name) to connect to


class PinnedNetwork(httpcore.AsyncNetworkBackend):
    """httpcore's network, each TCP connection to an address `connect_to` gives for the host (the
    first that accepts); `inner` is the real network (tests map addresses to a local site)."""

    def __init__(self, connect_to: ConnectTo, inner: httpcore.AsyncNetworkBackend | None = None):
        self.connect_to = connect_to
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        failure: Exception | None = None
        for address in await self.connect_to(host):
            try:
                return await self.inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        raise failure or httpcore.ConnectError(f"{host} has no address to connect to")

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        return await self.inner.connect_unix_socket(path, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport over a `PinnedNetwork` (httpx takes no network backend of its own, so its
    connection pool is replaced by one that does; the pool is made, not opened, by __init__)."""

    def __init__(
        self, network: PinnedNetwork, limits: httpx.Limits, verify: ssl.SSLContext | bool = True
    ) -> None:
        context = _DEFAULT_TLS() if verify is True else httpx.create_ssl_context(verify=verify)
        super().__init__(verify=context, limits=limits)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=network,
        )
