"""get_artifact: a chunk of an artifact as base64, at most maxArtifactInlineBytes (the bound
of `limit` is the server's, so the input schema is a function of its limits).
"""

from __future__ import annotations

import base64
from typing import Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from taskplate.interpreter import Limits

from .._results import ok
from .._schemas import ID, INT, MAX_OFFSET, B, S, obj
from .._state import ServerState
from ._spec import Schema, ToolSpec, params


def inputs(limits: Limits) -> Schema:
    return params(
        {
            "artifactId": ID,
            "offset": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": limits.max_artifact_inline_bytes,
                "description": "At most maxArtifactInlineBytes.",
            },
        },
        ["artifactId"],
    )


OUTPUT = obj(
    {
        "artifactId": S,
        "mimeType": S,
        "size": INT,
        "data": S,
        "offset": INT,
        "bytesReturned": INT,
        "complete": B,
    }
)


async def get_artifact(state: ServerState, args: dict[str, Any], ctx: Context) -> CallToolResult:
    manager = state.manager
    limit = args.get("limit", manager.run_limits().max_artifact_inline_bytes * 3 // 4)
    chunk = await manager.read_artifact(
        args["artifactId"], state.principal(ctx), offset=args.get("offset", 0), limit=limit
    )
    return ok(
        {
            "artifactId": args["artifactId"],
            "mimeType": chunk.meta["mime_type"],
            "size": chunk.meta["size"],
            "data": base64.b64encode(chunk.data).decode(),
            "offset": chunk.offset,
            "bytesReturned": len(chunk.data),
            "complete": chunk.complete,
        }
    )


SPEC = ToolSpec(
    "get_artifact",
    "A chunk of an artifact as base64; read on from offset + bytesReturned until complete.",
    inputs,
    OUTPUT,
    get_artifact,
)
