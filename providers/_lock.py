"""What a provider offers, as taskplate sees it: each tool's schemas and annotations, the
action spec made of it, and `providers.lock.json`, which records them for static checks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskplate.contract import Level
from taskplate.dsl import ActionSpec

from ._config import LOCK_FILE, Configuration, ProviderConfig

LOCK_VERSION = 1
PREFIX = "mcp."
TEXT_RESULT: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "The tool's text content."}},
    "required": ["text"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ToolInfo:
    """A provider's tool as its lock file records it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        if self.annotations:
            out["annotations"] = self.annotations
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolInfo:
        return cls(
            name=data["name"],
            description=data.get("description") or "",
            input_schema=data.get("inputSchema") or {"type": "object"},
            output_schema=data.get("outputSchema"),
            annotations=data.get("annotations") or {},
        )


@dataclass(frozen=True)
class ServerListing:
    """One provider's answer: the server's name and version, and its tools."""

    provider: str
    server_name: str
    server_version: str
    tools: tuple[ToolInfo, ...]
    config_hash: str = ""


def action_name(provider: str, tool: str) -> str:
    return f"{PREFIX}{provider}.{tool}"


def split_action(name: str) -> tuple[str, str] | None:
    """(provider, tool) of an `mcp.<provider>.<tool>` name."""
    if not name.startswith(PREFIX):
        return None
    provider, dot, tool = name[len(PREFIX) :].partition(".")
    return (provider, tool) if dot and provider and tool else None


def level_of(tool: ToolInfo, provider: ProviderConfig | None) -> Level:
    """The operator's word, else L0 for a tool that says it is read-only, else L2."""
    configured = provider.level_of(tool.name) if provider is not None else None
    if configured is not None:
        return configured
    return Level.L0 if tool.annotations.get("readOnlyHint") is True else Level.L2


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema that refuses undeclared arguments (a misspelt one is an error)."""
    schema = dict(schema) if isinstance(schema, dict) else {"type": "object"}
    schema.setdefault("type", "object")
    if isinstance(schema.get("properties"), dict) and "additionalProperties" not in schema:
        schema["additionalProperties"] = False
    return schema


def tool_spec(
    provider: str,
    tool: ToolInfo,
    config: ProviderConfig | None,
    run: Callable[..., Awaitable[Any]] | None = None,
) -> ActionSpec:
    level = level_of(tool, config)
    return ActionSpec(
        name=action_name(provider, tool.name),
        level=level,
        summary=(tool.description or tool.name).strip().splitlines()[0][:200],
        args_schema=_closed(tool.input_schema),
        result_schema=tool.output_schema or TEXT_RESULT,
        needs_browser=False,
        pure=level is Level.L0,
        provider=provider,
        requires_confirm=level is not Level.L0,
        run=run,
    )


# -- the lock file ----------------------------------------------------------------------------


def lock_json(listings: list[ServerListing]) -> dict[str, Any]:
    return {
        "lockVersion": LOCK_VERSION,
        "providers": {
            listing.provider: {
                "configHash": listing.config_hash,
                "server": {"name": listing.server_name, "version": listing.server_version},
                "tools": [t.to_json() for t in sorted(listing.tools, key=lambda t: t.name)],
            }
            for listing in sorted(listings, key=lambda x: x.provider)
        },
    }


def write_lock(path: Path, listings: list[ServerListing]) -> None:
    """Written whole, then moved into place: a reader never sees half a lock."""
    text = json.dumps(lock_json(listings), indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    temp.replace(path)


@dataclass
class LockState:
    """What the lock files say of each configured provider, and what is wrong with them."""

    listings: dict[str, ServerListing] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)  # provider -> why it has no listing
    stale: dict[str, str] = field(default_factory=dict)  # provider -> why its listing is old


def read_locks(config: Configuration) -> LockState:
    state = LockState()
    cache: dict[Path, dict[str, Any] | str] = {}
    for name, provider in config.providers.items():
        path = provider.lock_path
        if path not in cache:
            cache[path] = _load(path)
        data = cache[path]
        entry = data.get("providers", {}).get(name) if isinstance(data, dict) else None
        if not isinstance(entry, dict):
            # Another configuration's lock may list a provider of that name (the data home
            # redefining a shipped one): its tools serve, checked as written for another config.
            path, entry = _elsewhere(config, name, cache) or (path, None)
        if not isinstance(entry, dict):
            state.missing[name] = (
                data
                if isinstance(data, str)
                else f'{path} has no entry for provider "{name}" (run dsl providers sync)'
            )
            continue
        listing = _listing(name, entry)
        if listing is None:
            state.missing[name] = f'{path}: the entry of provider "{name}" is malformed'
            continue
        state.listings[name] = listing
        if entry.get("configHash") != provider.config_hash:
            state.stale[name] = (
                f'{path} is older than the configuration of provider "{name}" in '
                f"{provider.source} (run dsl providers sync)"
            )
    return state


def lock_listings(path: Path) -> dict[str, ServerListing]:
    """Every provider a lock file lists, whatever the configuration says (a test case's
    template: the lock beside it); none when the file is missing or unreadable."""
    data = _load(path)
    entries = data.get("providers", {}) if isinstance(data, dict) else {}
    listings = {n: _listing(n, e) for n, e in entries.items()} if isinstance(entries, dict) else {}
    return {n: listing for n, listing in listings.items() if listing is not None}


def _listing(name: str, entry: Any) -> ServerListing | None:
    """A lock file's entry of one provider, or None when it is malformed."""
    if not isinstance(entry, dict):
        return None
    try:
        tools = tuple(ToolInfo.from_json(t) for t in entry.get("tools", []))
    except (KeyError, TypeError, AttributeError):
        return None
    server = entry.get("server") or {}
    return ServerListing(
        name,
        str(server.get("name", "")),
        str(server.get("version", "")),
        tools,
        str(entry.get("configHash", "")),
    )


def _elsewhere(
    config: Configuration, name: str, cache: dict[Path, dict[str, Any] | str]
) -> tuple[Path, dict[str, Any]] | None:
    for source in config.files:
        path = Path(source).parent / LOCK_FILE
        if path not in cache:
            cache[path] = _load(path)
        data = cache[path]
        entry = data.get("providers", {}).get(name) if isinstance(data, dict) else None
        if isinstance(entry, dict):
            return path, entry
    return None


def _load(path: Path) -> dict[str, Any] | str:
    if not path.is_file():
        return f"no {LOCK_FILE} beside {path.parent / 'taskplate.toml'} (run dsl providers sync)"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"{path} cannot be read ({exc}); run dsl providers sync"
    if not isinstance(data, dict) or data.get("lockVersion") != LOCK_VERSION:
        return f"{path} is not a lock file of version {LOCK_VERSION}; run dsl providers sync"
    return data
