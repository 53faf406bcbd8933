"""The MCP server: the template contract and the browser tools over stdio and streamable HTTP.

Translates between MCP and the run manager; never invents behaviour of its own.
"""

from ._app import build_server
from ._serve import serve

__all__ = ["build_server", "serve"]
