"""How clients reach the server: stdio (its fast start answering before the SDK loads, then the
SDK's takeover) and streamable HTTP (bearer tokens, Host and Origin checks), each raw JSON-RPC
line looked at before the SDK reads it. Its public names load on first use: the start on stdio
imports nothing of the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._auth import (
        LOOPBACK_HOSTS,
        HttpSecurity,
        StaticTokens,
        Token,
        is_loopback,
        load_tokens,
        shares,
    )
    from ._front import Started, start_on_stdio
    from ._http import answer_malformed
    from ._stdio import run_stdio

__getattr__ = lazy_names(__name__, globals())

__all__ = [
    "LOOPBACK_HOSTS",
    "HttpSecurity",
    "Started",
    "StaticTokens",
    "Token",
    "answer_malformed",
    "is_loopback",
    "load_tokens",
    "run_stdio",
    "shares",
    "start_on_stdio",
]
