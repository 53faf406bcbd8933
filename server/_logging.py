"""MCP logging: `logging/setLevel` per client, and a run's step log as `notifications/message`
while a client waits for it (sync runs, run_steps).

Sends only what the client asked for (its level; on 2026-07-28 the request's own `_meta` level).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import SetLevelRequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from taskplate.contract import StepStatus
from taskplate.interpreter import StepRow
from taskplate.providers import lowlevel_server

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
DEFAULT_LEVEL = "notice"  # until a client sets one: failures and run ends, not every step
LOGGER = "taskplate.run"


@dataclass
class LogLevels:
    """The level each client set with logging/setLevel (by the caller key of ServerState)."""

    levels: dict[str, str] = field(default_factory=dict)

    def wanted(self, ctx: Context) -> str | None:
        context = ctx.request_context
        if context.protocol_version in MODERN_PROTOCOL_VERSIONS:  # opt-in per request
            meta = context.meta or {}
            level = meta.get("io.modelcontextprotocol/logLevel")
            return level if level in LEVELS else None
        caller = caller_of(context.request)
        return self.levels.get(caller, DEFAULT_LEVEL) if caller else DEFAULT_LEVEL

    def install(self, server: MCPServer) -> None:
        async def set_level(
            ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams
        ) -> dict[str, Any]:
            caller = caller_of(ctx.request)
            if caller is not None:
                self.levels[caller] = params.level
            return {}

        # MCPServer has no public hook for it; the low-level server's is the SDK's own
        lowlevel_server(server).add_request_handler(
            "logging/setLevel", SetLevelRequestParams, set_level
        )


def caller_of(request: Any) -> str | None:
    """Who is calling, as far as the transport tells: the stdio client (one per process), the
    HTTP client's Mcp-Session-Id, or None (a stateless HTTP request cannot be told apart)."""
    if request is None:
        return "stdio"
    mcp_session_id = (getattr(request, "headers", {}) or {}).get("mcp-session-id")
    return f"http:{mcp_session_id}" if mcp_session_id else None


def step_entry(run_id: str, row: StepRow) -> tuple[str, dict[str, Any]]:
    """A step execution as a log entry: its level and data (no argument or result values)."""
    data: dict[str, Any] = {
        "runId": run_id,
        "step": row.step_id,
        "action": row.action,
        "status": str(row.status),
        "attempts": row.attempts,
        "ms": round((row.ended_at - row.started_at) * 1000),
    }
    if row.item_index is not None:
        data["item"] = row.item_index
    if row.error:
        data["errorCode"] = row.error.get("errorCode") or row.error.get("code")
        data["error"] = row.error.get("error") or row.error.get("message")
    level = "warning" if row.status is StepStatus.FAILED else "info"
    data["message"] = (
        f"step {row.step_id or row.action}"
        + (f" [item {row.item_index}]" if row.item_index is not None else "")
        + f" {row.status}"
        + (f": {data['error']}" if row.error else "")
    )
    return level, data


async def send(ctx: Context, wanted: str | None, level: str, data: dict[str, Any]) -> None:
    if wanted is None or LEVELS.index(level) < LEVELS.index(wanted):
        return
    with warnings.catch_warnings():  # deprecated at 2026-07-28, still the way before it
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await ctx.log(level, data, logger_name=LOGGER)  # type: ignore[arg-type]
