"""The web client: plain HTTP for actions that need no browser (`fetch`, `read_page`'s http
engine, `sitemap`, `robots`), polite and bounded, its exchanges recorded and replayed for cases.

Its public names load on first use: httpx comes with them, never with `dsl validate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._body import Body
    from ._charset import decode
    from ._client import CookieSource, WebClient, WebConfig, client_for, origin
    from ._har import HttpRecording, HttpReplay
    from ._hosts import HostReading

__getattr__ = lazy_names(__name__, globals())

__all__ = [
    "Body",
    "CookieSource",
    "HostReading",
    "HttpRecording",
    "HttpReplay",
    "WebClient",
    "WebConfig",
    "client_for",
    "decode",
    "origin",
]
