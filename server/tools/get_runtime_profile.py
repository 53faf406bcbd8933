"""get_runtime_profile: the runtime's version, the caller's trust level, the limits and the
browser. Launches the browser if it is not running yet, to name its version.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from .._results import ok
from .._schemas import INT, S, obj
from .._state import ServerState
from ._spec import ToolSpec, params

INPUT = params({})
LIMITS = obj(
    {
        k: INT
        for k in (
            "maxConcurrentRuns",
            "maxRunTimeoutMs",
            "maxArtifactInlineBytes",
            "maxTabsPerSession",
            "artifactTtlMs",
            "maxInputBytes",
        )
    }
)
OUTPUT = obj(
    {
        "runtimeVersion": S,
        "trustLevel": {"enum": ["local", "remote"]},
        "limits": LIMITS,
        "browser": obj({"name": S, "version": S}),
    }
)


async def get_runtime_profile(
    state: ServerState, args: dict[str, Any], ctx: Context
) -> CallToolResult:
    manager = state.manager
    browser_version = await manager.browser_version()
    return ok(
        {
            "runtimeVersion": version("taskplate"),
            "trustLevel": str(state.trust(ctx)),
            "limits": manager.run_limits().to_json(),
            "browser": {"name": "chromium", "version": browser_version},
        }
    )


SPEC = ToolSpec(
    "get_runtime_profile",
    "The runtime's version, your trust level (local or remote), the limits and the browser.",
    INPUT,
    OUTPUT,
    get_runtime_profile,
)
