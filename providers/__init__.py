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
        SCHEMA,
        Configuration,
        ProviderConfig,
        config_files,
        load_configuration,
    )
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
    from ._sdk import (
        ArgModelBase,
        FuncMetadata,
        ReadStream,
        WriteStream,
        add_tool,
        lowlevel_server,
        tool_input_schema,
    )

# Public names, loaded on first use: `dsl validate` reads configuration and lock files without
# loading the live client (anyio, the mcp SDK).
_LAZY: dict[str, tuple[str, str]] = {
    "provider_specs": ("._actions", "provider_specs"),
    "step_result": ("._actions", "step_result"),
    "ProviderCatalog": ("._catalog", "ProviderCatalog"),
    "fingerprint": ("._catalog", "fingerprint"),
    "template_needs": ("._catalog", "template_needs"),
    "Connection": ("._client", "Connection"),
    "Providers": ("._client", "Providers"),
    "CONFIG_FILE": ("._config", "CONFIG_FILE"),
    "LOCK_FILE": ("._config", "LOCK_FILE"),
    "SCHEMA": ("._config", "SCHEMA"),
    "Configuration": ("._config", "Configuration"),
    "ProviderConfig": ("._config", "ProviderConfig"),
    "config_files": ("._config", "config_files"),
    "load_configuration": ("._config", "load_configuration"),
    "ModelEndpoint": ("._llm", "ModelEndpoint"),
    # The MCP SDK's private names, reached here only (providers/_sdk.py)
    "ArgModelBase": ("._sdk", "ArgModelBase"),
    "FuncMetadata": ("._sdk", "FuncMetadata"),
    "ReadStream": ("._sdk", "ReadStream"),
    "WriteStream": ("._sdk", "WriteStream"),
    "lowlevel_server": ("._sdk", "lowlevel_server"),
    "add_tool": ("._sdk", "add_tool"),
    "tool_input_schema": ("._sdk", "tool_input_schema"),
    "LockState": ("._lock", "LockState"),
    "ServerListing": ("._lock", "ServerListing"),
    "ToolInfo": ("._lock", "ToolInfo"),
    "action_name": ("._lock", "action_name"),
    "level_of": ("._lock", "level_of"),
    "read_locks": ("._lock", "read_locks"),
    "split_action": ("._lock", "split_action"),
    "tool_spec": ("._lock", "tool_spec"),
    "write_lock": ("._lock", "write_lock"),
}

__getattr__ = lazy_names(__name__, _LAZY, globals())

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
