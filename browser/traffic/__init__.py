"""What a browser's traffic may reach and how it goes: the URL policy, hosts read as the URL
standard reads them, a run's proxy and identity, its per-host pace, blocked resources and the
bound on a document's body. Values and checks; the tab's DevTools guard (`_guard.py`) uses them.

Its public names load on first use, as the browser's do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._blocking import blocked_url_patterns
    from ._document_body import DEFAULT_MAX_BODY_BYTES, let_through
    from ._network import (
        Identity,
        Network,
        Proxy,
        accept_language,
        mask_credentials,
        proxy_from_env,
        through_proxy,
    )
    from ._policy import Resolver, UrlPolicy, redirect_elsewhere, system_resolver
    from ._throttle import HostThrottle, retry_after_s
    from ._url_host import as_read, host_of, joined, url_host

__getattr__ = lazy_names(__name__, globals())

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "HostThrottle",
    "Identity",
    "Network",
    "Proxy",
    "Resolver",
    "UrlPolicy",
    "accept_language",
    "as_read",
    "blocked_url_patterns",
    "host_of",
    "joined",
    "let_through",
    "mask_credentials",
    "proxy_from_env",
    "redirect_elsewhere",
    "retry_after_s",
    "system_resolver",
    "through_proxy",
    "url_host",
]
