"""The one place taskplate reaches names the MCP SDK keeps private (a leading `_`): the stream
protocols of its transports, the argument model of its tools, its HTTP client's defaults, the
low-level server under `MCPServer` and the input schema it checks a call against. The SDK
offers no public way to these; they may change in any minor release, so pyproject.toml pins
the SDK's range and tests/providers/test_sdk.py fails when one of them moves.

Here (in the lowest folder that talks MCP) so that `server/` and `providers/` share it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared._stream_protocols import ReadStream, WriteStream

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools.base import Tool


def lowlevel_server(server: MCPServer) -> Server[Any]:
    """The SDK's low-level server under an `MCPServer` (the one that takes streams and request
    handlers): MCPServer offers no other way to it."""
    return server._lowlevel_server


def add_tool(server: MCPServer, tool: Tool) -> None:
    """A tool built beforehand (its own schemas and function) added to a running server:
    MCPServer.add_tool takes only a function to build one from."""
    server._tool_manager._tools[tool.name] = tool


def tool_input_schema(server: MCPServer, name: str) -> dict[str, Any] | None:
    """The input schema of the server's tool `name` (None: it has no such tool), found as the
    SDK finds it before middleware runs."""
    return server._tool_input_schema(name)


__all__ = [
    "ArgModelBase",
    "FuncMetadata",
    "ReadStream",
    "WriteStream",
    "add_tool",
    "create_mcp_http_client",
    "lowlevel_server",
    "tool_input_schema",
]
