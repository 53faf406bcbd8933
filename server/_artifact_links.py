"""Artifacts as MCP resources: `artifact://ID` read by `resources/read` under its caller's
ownership (another caller's answered as an unknown one), and a `resource_link` beside each
answer that names one, for clients whose protocol version has links (2025-06-18 on).
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp_types import CallToolResult, InputRequiredResult, ResourceLink

from taskplate.contract import TaskplateError

from ._state import ServerState

SCHEME = "artifact://"
LINKS_SINCE = "2025-06-18"  # the first protocol version with resource_link content


def serve_artifacts(server: MCPServer, state: ServerState) -> None:
    """`resources/read` of `artifact://ID`: the artifact whole, text as text, else base64."""

    @server.resource(
        SCHEME + "{artifact_id}",
        name="artifact",
        description="An artifact of yours (a run's file, a long answer kept whole), by its id.",
    )
    async def artifact(artifact_id: str, ctx: Context) -> str | bytes:
        try:
            chunk = await state.manager.read_artifact(artifact_id, state.principal(ctx))
        except TaskplateError as error:
            raise ResourceNotFoundError(str(error)) from None
        mime = str(chunk.meta.get("mime_type") or "")
        if mime.startswith("text/") or mime == "application/json":
            return chunk.data.decode("utf-8", errors="replace")
        return chunk.data


def linked(
    answer: CallToolResult | InputRequiredResult, ctx: Context
) -> CallToolResult | InputRequiredResult:
    """`answer` with a resource_link to each artifact it names at its top (its `artifactId`, its
    result's `resultArtifactId`), where the caller's protocol version has links."""
    if not isinstance(answer, CallToolResult) or answer.is_error or not _links_spoken(ctx):
        return answer
    data = answer.structured_content or {}
    result = data.get("result")
    named = [
        data.get("artifactId"),
        result.get("resultArtifactId") if isinstance(result, dict) else None,
    ]
    links: list[ResourceLink] = [
        ResourceLink(type="resource_link", uri=SCHEME + artifact_id, name=artifact_id)
        for artifact_id in named
        if isinstance(artifact_id, str) and artifact_id
    ]
    if links:
        answer.content = [*answer.content, *links]
    return answer


def _links_spoken(ctx: Context) -> bool:
    version = ctx.protocol_version if ctx is not None else None
    return version is not None and version >= LINKS_SINCE
