"""The taskplate MCP server: every tool, templates as resources, on the official `mcp` SDK.

Built around a running RunManager; transports (stdio, streamable HTTP) are chosen by `serve`.
"""

from __future__ import annotations

import secrets
from importlib.metadata import version
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.settings import AuthSettings
from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.mcpserver.resources import TextResource
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.request_state import RequestStateSecurity
from mcp_types import CallToolResult, InputRequiredResult

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.dsl import Template
from taskplate.interpreter import RunManager
from taskplate.providers import add_tool, lowlevel_server, tool_input_schema

from ._artifact_links import serve_artifacts
from ._paging import CHARS_PER_TOKEN, DEFAULT_TOKENS
from ._results import failed
from ._state import ServerState
from ._tasks import TASK_SUPPORT, Tasks, TasksExtension
from .tools import GROUP_OF, GROUPS, run_steps, run_task_template, tools
from .tools.template_tools import DEFAULT_TOOL_TOKENS, listed_size, template_specs
from .transports import StaticTokens

INSTRUCTIONS = """taskplate runs browser task templates. Prefer one run_task_template call (see
list_task_templates) over many single tools; use run_steps for a deterministic sequence the
templates do not cover, and single tools (navigate, snapshot, click, …) for exploration, where
the operator serves them (tool groups: a tool not listed answers which group serves it).
Long runs: options.mode async, then poll get_task_run every 2 s. Large results are artifacts:
read them with get_artifact in chunks."""


class TaskplateServer(MCPServer):
    """The SDK's server, where a call of a tool it does not have is answered like every other
    failed call, with an errorCode (the SDK answers its own text)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.left_out: dict[str, str] = {}  # the templates not offered as tools, and why

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if tool_input_schema(self, name) is None and name in GROUP_OF:
            group = GROUP_OF[name]
            return failed(
                TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f'the tool "{name}" is in the group {group}, which this server does not serve',
                    f"Ask the operator to serve it: dsl serve --tools ...,{group} (or {group} in "
                    "[serve] tools of taskplate.toml).",
                    {"tool": name, "group": group},
                )
            )
        if tool_input_schema(self, name) is None and name in self.left_out:
            return failed(
                TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f'the template "{name}" is not offered as a tool: {self.left_out[name]}',
                    f'Call run_task_template {{"templateId": "{name}", "inputs": {{…}}}}, or ask'
                    " the operator for a larger budget: dsl serve --tool-tokens N.",
                    {"tool": name, "templateId": name},
                )
            )
        if tool_input_schema(self, name) is None:
            return failed(
                TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f'there is no tool "{name}"',
                    "Call one of the tools tools/list names.",
                    {"tool": name},
                )
            )
        return await super().call_tool(name, arguments, context)


def build_server(
    manager: RunManager,
    http_trust: TrustLevel = TrustLevel.REMOTE,
    auth: tuple[StaticTokens, AuthSettings] | None = None,
    remote_save: bool = False,
    groups: tuple[str, ...] = tuple(GROUPS),
    template_tools: bool = False,
    answer_tokens: int = DEFAULT_TOKENS,
    tool_tokens: int = DEFAULT_TOOL_TOKENS,
) -> tuple[MCPServer, ServerState]:
    """The server with the tools of `groups`; `auth` (HTTP only) is the SDK's token verifier
    and settings; `remote_save` lets remote callers save templates; `template_tools` offers
    the served templates as tools of their own (`tools/template_tools.py`), as many as fit
    beside the groups' tools in `tool_tokens` of tools/list; `answer_tokens` bounds an
    answer's text."""
    state = ServerState(
        manager, http_trust, remote_save=remote_save, answer_chars=answer_tokens * CHARS_PER_TOKEN
    )
    verifier, settings = auth if auth is not None else (None, None)
    # the tools whose runs may be tasks (MCP Tasks, both protocol lines), with their answers
    tasks = Tasks(
        state, {"run_task_template": run_task_template.final, "run_steps": run_steps.final}
    )
    served = tools(state, groups)
    server = TaskplateServer(
        "taskplate",
        token_verifier=verifier,
        auth=settings,
        version=version("taskplate"),
        instructions=INSTRUCTIONS,
        tools=served,
        warn_on_duplicate_resources=False,
        extensions=[TasksExtension(tasks)],
        request_state_security=request_state_security(),
    )
    server.middleware.append(tasks)
    state.log_levels.install(server)
    for template in manager.templates():
        publish(server, manager, template)
    state.published = lambda template: publish(server, manager, template)
    if template_tools:  # the room the groups' tools leave in tools/list, as it is sent
        used = len('{"tools":[]}') + sum(
            listed_size(
                t.name,
                t.description,
                t.parameters,
                t.output_schema,
                TASK_SUPPORT if t.name in tasks.finals else None,
            )
            for t in served
        )
        state.tool_room = tool_tokens * CHARS_PER_TOKEN - used
        state.tool_tokens, server.left_out = tool_tokens, state.left_out
        state.reoffered = lambda: offer_templates(server, state)
        state.reoffered()
        announce_list_changes(server)
    serve_artifacts(server, state)
    serve_own_templates(server, state)
    return server, state


def request_state_security() -> RequestStateSecurity:
    """The SDK's sealing of `requestState` (a key of this process, its default TTL), bound to
    the caller's principal rather than its token (the SDK's default binds the token's client
    id): an answer sent with the principal's rotated token still reaches its run."""
    return RequestStateSecurity(keys=[secrets.token_bytes(32)], bind_principal=_principal_of)


def _principal_of(_ctx: Any) -> str | None:
    """A bearer token's principal (StaticTokens' claim); None without a token (stdio, local
    HTTP), where the SDK's default binds nothing either."""
    token = get_access_token()
    if token is None:
        return None
    return "principal:" + str((token.claims or {}).get("principal") or token.client_id)


def offer_templates(server: MCPServer, state: ServerState) -> bool:
    """The served templates as tools, in place of those offered before; True when the list
    of tools changed (names, schemas or descriptions)."""
    offered: dict[str, Tool] = state.template_tools
    manager = state.manager
    specs, left_out = template_specs(
        manager.templates(), state.tool_room, manager.is_shipped, state.tool_tokens
    )
    state.left_out.clear()
    state.left_out.update(left_out)
    before = {name: _listed(tool) for name, tool in offered.items()}
    for name in offered:
        server.remove_tool(name)
    offered.clear()
    for spec in specs:
        offered[spec.name] = spec.tool(state)
        add_tool(server, offered[spec.name])
    return before != {name: _listed(tool) for name, tool in offered.items()}


def _listed(tool: Tool) -> tuple[Any, ...]:
    """What tools/list says of a tool."""
    return tool.description, tool.parameters, tool.output_schema


def announce_list_changes(server: MCPServer) -> None:
    """The tools capability says listChanged (the SDK says it only when told at the start)."""
    lowlevel = lowlevel_server(server)
    plain = lowlevel.get_capabilities

    def told(options: NotificationOptions | None = None, *args: Any, **kwargs: Any) -> Any:
        options = options or NotificationOptions()
        options.tools_changed = True
        return plain(options, *args, **kwargs)

    lowlevel.get_capabilities = told  # type: ignore[method-assign,assignment]


def serve_own_templates(server: MCPServer, state: ServerState) -> None:
    """`template://ID@VERSION` of a template a remote caller saved, read by that caller only
    (the operator's and shipped ones are resources of their own, `publish`); any other such
    address is answered as the SDK answers one it does not know."""

    @server.resource(
        "template://{ref}",
        name="saved template",
        description="A template you saved (save_template), by its id and version.",
        mime_type="application/yaml",
    )
    async def own_template(ref: str, ctx: Context) -> str:
        space = state.principal(ctx).space
        template_id, _, version = ref.rpartition("@")
        text = state.manager.own_template_source(space, template_id, version)
        if text is None:
            raise ResourceNotFoundError(f"Unknown resource: template://{ref}")
        return text


def publish(server: MCPServer, manager: RunManager, template: Template) -> None:
    """A served template as the resource `template://ID@VERSION` (its YAML text)."""
    text = manager.template_source(template)
    server.add_resource(
        TextResource(
            uri=f"template://{template.id}@{template.version}",
            name=f"{template.id}@{template.version}",
            description=template.description or template.name,
            mime_type="application/yaml",
            text=text,
        )
    )
