"""Providers: other MCP servers whose tools become actions `mcp.<server>.<tool>`, and the
template switches and language model of `taskplate.toml`. Knows the language (`dsl/`) only; no
browser, no runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._actions import provider_specs, step_result
    from ._catalog import ProviderCatalog, fingerprint, template_needs
    from ._client import Connection, Providers
    from ._config import (
        CONFIG_FILE,
        LOCK_FILE,
        Configuration,
        ProviderConfig,
        config_files,
        load_configuration,
    )
    from ._config_schema import SCHEMA
    from ._llm import ModelEndpoint
    from ._lock import (
        LockState,
        ServerListing,
        ToolInfo,
        action_name,
        level_of,
        read_locks,
        split_action,
        tool_spec,
        write_lock,
    )

    # the MCP SDK's private names, reached here only (providers/_sdk.py)
    from ._sdk import (
        ArgModelBase,
        FuncMetadata,
        ReadStream,
        WriteStream,
        add_tool,
        lowlevel_server,
        tool_input_schema,
    )

# Public names: the TYPE_CHECKING imports above, loaded on first use: `dsl validate` reads
# configuration and lock files without loading the live client (anyio, the mcp SDK).
__getattr__ = lazy_names(__name__, globals())

__all__ = [
    "CONFIG_FILE",
    "LOCK_FILE",
    "SCHEMA",
    "ArgModelBase",
    "Configuration",
    "Connection",
    "FuncMetadata",
    "LockState",
    "ModelEndpoint",
    "ProviderCatalog",
    "ProviderConfig",
    "Providers",
    "ReadStream",
    "ServerListing",
    "ToolInfo",
    "WriteStream",
    "action_name",
    "add_tool",
    "config_files",
    "fingerprint",
    "level_of",
    "load_configuration",
    "lowlevel_server",
    "provider_specs",
    "read_locks",
    "split_action",
    "step_result",
    "template_needs",
    "tool_input_schema",
    "tool_spec",
    "write_lock",
]
