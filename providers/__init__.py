"""Providers: other MCP servers whose tools become actions `mcp.<server>.<tool>`, and the
template switches of `taskplate.toml`. Knows the language (`dsl/`) only; no browser, no runs.
"""

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

__all__ = [
    "CONFIG_FILE",
    "LOCK_FILE",
    "SCHEMA",
    "Configuration",
    "Connection",
    "LockState",
    "ProviderCatalog",
    "ProviderConfig",
    "Providers",
    "ServerListing",
    "ToolInfo",
    "action_name",
    "config_files",
    "fingerprint",
    "level_of",
    "load_configuration",
    "provider_specs",
    "read_locks",
    "split_action",
    "step_result",
    "template_needs",
    "tool_spec",
    "write_lock",
]
