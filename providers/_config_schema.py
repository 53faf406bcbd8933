"""The schema of `taskplate.toml` (`SCHEMA`, published as docs/taskplate.toml.schema.json by
`dsl docs`): its tables, each entry checked against its part when the file is read
(`_config.py`)."""

from __future__ import annotations

import re
from typing import Any

from ._llm import LLM

NAME = re.compile(r"^[a-z0-9_]+$")  # a provider's name

_LEVELS = {"enum": ["L0", "L1", "L2"]}
_TEMPLATE_NAMES = {"type": "array", "items": {"type": "string", "minLength": 1}}
_PROVIDER: dict[str, Any] = {
    "type": "object",
    "description": "One MCP server: `command` (stdio) or `url` (streamable HTTP), not both.",
    "properties": {
        "command": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": "stdio: the server's argv; `${VAR}` is read from the environment.",
        },
        "cwd": {"type": "string", "description": "stdio: working folder, relative to this file."},
        "env": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "stdio: environment variables added to the server's.",
        },
        "url": {
            "type": "string",
            "pattern": "^https?://",
            "description": "Streamable HTTP: the server's MCP endpoint.",
        },
        "token_env": {
            "type": "string",
            "pattern": "^[A-Za-z_][A-Za-z0-9_]*$",
            "description": "HTTP: the environment variable holding a bearer token.",
        },
        "levels": {
            "type": "object",
            "additionalProperties": _LEVELS,
            "description": "Capability level per tool name, overriding what its annotations say.",
        },
        "start_timeout_ms": {"type": "integer", "minimum": 1},
        "call_timeout_ms": {"type": "integer", "minimum": 1},
    },
    "additionalProperties": False,
    "oneOf": [{"required": ["command"]}, {"required": ["url"]}],
}
NETWORK: dict[str, Any] = {
    "type": "object",
    "description": "What runs' traffic goes through (docs/networks.md).",
    "properties": {
        "proxy": {"type": "string", "description": "scheme://[user:password@]host:port"},
        "no_proxy": {"type": "string", "description": "Hosts that go direct, comma-separated."},
        "allow_proxies": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Proxies a remote caller may name in options.proxy.",
        },
        "max_retry_after_s": {"type": "number", "minimum": 0, "maximum": 3600},
        "profiles": {
            "type": "object",
            "description": "A proxy per login profile ([network.profiles.NAME] proxy = …).",
            "additionalProperties": {
                "type": "object",
                "properties": {"proxy": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://taskplate.dev/schemas/taskplate.toml.json",
    "title": "taskplate.toml",
    "description": "Providers (other MCP servers whose tools become actions), template switches "
    "and the language model llm_extract may ask.",
    "type": "object",
    "properties": {
        "providers": {
            "type": "object",
            "propertyNames": {"pattern": NAME.pattern},
            "additionalProperties": _PROVIDER,
        },
        "templates": {
            "type": "object",
            "properties": {
                "disabled": _TEMPLATE_NAMES,
                "enabled": _TEMPLATE_NAMES,
                "local_only": _TEMPLATE_NAMES,
            },
            "additionalProperties": False,
        },
        "llm": LLM,
        "network": NETWORK,
        "profiles": {
            "type": "object",
            "description": "Remote principals' login profiles (docs/profiles.md; the data home's only).",
            "properties": {
                "most": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 20},
                "unused_days": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 3650,
                    "default": 30,
                },
                "shared": {
                    "type": "object",
                    "description": "An operator profile = the principals that use it.",
                    "propertyNames": {"pattern": "^[a-zA-Z0-9._-]{1,64}$"},
                    "additionalProperties": {
                        "type": "array",
                        "items": {"type": "string", "minLength": 1},
                    },
                },
            },
            "additionalProperties": False,
        },
        "serve": {
            "type": "object",
            "description": "What `dsl serve` offers agents (its flags have the last word).",
            "properties": {
                "tools": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "templateTools": {"type": "boolean"},
                "answerTokens": {"type": "integer", "minimum": 1000, "maximum": 1000000},
                "toolTokens": {"type": "integer", "minimum": 1000, "maximum": 1000000},
                "drainS": {"type": "number", "minimum": 0, "maximum": 3600},
            },
            "additionalProperties": False,
        },
    },
    "additionalProperties": False,
}
