"""list_task_templates: every served template as the contract describes it. Template files
and taskplate.toml changes take effect here (the library is refreshed first).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from .._results import ok
from .._schemas import B, S, obj
from .._state import ServerState, refresh_templates
from ._spec import ToolSpec, params

INPUT = params({})
_INFO = {
    "templateId": S,
    "version": S,
    "name": S,
    "description": S,
    "trustLevelSupport": {"type": "array", "items": {"enum": ["local", "remote"]}},
    "supportsPartialSuccess": B,
    "partialSuccessThreshold": {"type": ["number", "null"]},
    "limits": {"type": "object"},
    "inputsSchema": {"type": "object"},
    "outputsSchema": {"type": ["object", "null"]},
    "capabilityLevel": {"enum": ["L0", "L1", "L2"]},
    "providers": {"type": "array", "items": S},
}
# and, with templates as tools (dsl serve --template-tools), whether it is one, else why not
TEMPLATE_INFO = obj({**_INFO, "tool": obj({"offered": B, "why": S}, ["offered"])}, list(_INFO))
OUTPUT = obj({"templates": {"type": "array", "items": TEMPLATE_INFO}})


async def list_task_templates(
    state: ServerState, args: dict[str, Any], ctx: Context
) -> CallToolResult:
    manager = state.manager
    await refresh_templates(state, ctx)  # template files and taskplate.toml changes count
    space = state.principal(ctx).space  # a remote caller's own saved ones, never another's
    templates = [manager.template_info(t) | _as_tool(state, t.id) for t in manager.templates(space)]
    return ok({"templates": templates})


def _as_tool(state: ServerState, template_id: str) -> dict[str, Any]:
    """Whether the template is offered as a tool of its own, and why not (templateTools)."""
    if state.reoffered is None:  # templates are not tools on this server
        return {}
    why = state.left_out.get(template_id)
    return {"tool": {"offered": why is None} | ({"why": why} if why else {})}


SPEC = ToolSpec(
    "list_task_templates",
    "Every installed template: what it does, its inputs and outputs schemas, trust levels, limits, capability level and the MCP servers it calls.",
    INPUT,
    OUTPUT,
    list_task_templates,
)
