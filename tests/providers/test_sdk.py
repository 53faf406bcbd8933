"""The MCP SDK's private names taskplate uses (providers/_sdk.py, the only module that reaches
them) are still there, in the shape taskplate uses: this fails when an SDK release moves one."""

from __future__ import annotations

import inspect

from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

from taskplate.providers import (
    ArgModelBase,
    FuncMetadata,
    ReadStream,
    WriteStream,
    lowlevel_server,
    tool_input_schema,
)
from taskplate.providers._sdk import create_mcp_http_client


def test_the_low_level_server_and_its_request_handlers_are_reached() -> None:
    server = MCPServer("t")
    lowlevel = lowlevel_server(server)
    assert isinstance(lowlevel, Server)
    assert callable(lowlevel.add_request_handler)
    assert list(inspect.signature(lowlevel.add_request_handler).parameters)[:3] == [
        "method",
        "params_type",
        "handler",
    ]
    assert callable(lowlevel.run)


def test_a_tools_input_schema_is_found_and_an_unknown_tool_has_none() -> None:
    server = MCPServer("t")

    @server.tool()
    def echo(text: str) -> str:
        return text

    schema = tool_input_schema(server, "echo")
    assert schema is not None and "text" in schema["properties"]
    assert tool_input_schema(server, "nothing") is None


def test_the_tool_argument_model_takes_what_taskplate_gives_it() -> None:
    assert set(FuncMetadata.model_fields) >= {"arg_model", "output_schema"}
    assert issubclass(ArgModelBase, object) and hasattr(ArgModelBase, "model_dump_one_level")


def test_the_stream_protocols_have_the_methods_the_server_calls() -> None:
    read = {"receive", "aclose", "__aiter__", "__anext__", "__aenter__", "__aexit__"}
    assert read <= set(vars(ReadStream))
    assert {"send", "aclose", "__aenter__", "__aexit__"} <= set(vars(WriteStream))


def test_the_http_client_factory_takes_headers_and_auth() -> None:
    assert {"headers", "timeout", "auth"} <= set(
        inspect.signature(create_mcp_http_client).parameters
    )
