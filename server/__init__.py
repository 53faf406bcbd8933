"""The MCP server: the template contract and the browser tools over stdio and streamable HTTP.

Translates between MCP and the run manager; never invents behaviour of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._app import build_server
    from ._serve import KEEP_ALIVE_S, ServeSettings, run, serve
    from .transports import HttpSecurity, Started, is_loopback, load_tokens, start_on_stdio
    from .ui import UiAccess, ui_app

# Public names: the TYPE_CHECKING imports above, loaded on first use: `dsl ui` serves the runs page
# without the MCP server.
__getattr__ = lazy_names(__name__, globals())

__all__ = [
    "KEEP_ALIVE_S",
    "HttpSecurity",
    "ServeSettings",
    "Started",
    "UiAccess",
    "build_server",
    "is_loopback",
    "load_tokens",
    "run",
    "serve",
    "start_on_stdio",
    "ui_app",
]
