"""Answers kept small: a large value or a large screenshot kept as an artifact to read by
reference (under maxArtifactInlineBytes), a long page's content paged (under the answer budget).
"""

from __future__ import annotations

import base64
import json
from functools import partial
from typing import Any

from mcp_types import CallToolResult, ImageContent

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import Principal, RunArtifacts, RunManager

from .._paging import Cursor, content_kind, fitted_page, read_cursor, size, unknown_cursor
from .._results import ok


async def small(
    manager: RunManager, name: str, result: dict[str, Any], artifacts: RunArtifacts
) -> CallToolResult:
    """An action's answer under maxArtifactInlineBytes; the rest is an artifact."""
    inline = manager.run_limits().max_artifact_inline_bytes
    if name == "screenshot":
        chunk = await manager.read_artifact(result["artifactId"])
        if len(chunk.data) * 4 // 3 + 1000 < inline:
            image = ImageContent(
                type="image", data=base64.b64encode(chunk.data).decode(), mime_type="image/png"
            )
            return ok({**result, "inlined": True}, image)
        return ok({**result, "inlined": False})
    if name == "evaluate":
        data = json.dumps(result["value"], ensure_ascii=False).encode()
        if len(data) + 200 > inline:
            artifact_id = await artifacts.save("value.json", data, "application/json")
            note = f"the value is {len(data)} bytes as JSON, more than an answer may be; it is artifact {artifact_id}"
            warnings = [*result.get("warnings", []), note]
            return ok(
                {
                    "value": None,
                    "truncated": True,
                    "bytes": len(data),
                    "artifactId": artifact_id,
                    "warnings": warnings,
                }
            )
    return ok(result)


async def paged_content(
    tool: str, answer: dict[str, Any], artifacts: RunArtifacts, room: int
) -> dict[str, Any]:
    """A page's content answer of `tool` within `room` characters: whole, or its first part
    with a cursor into the whole answer, kept as an artifact of the caller's (`page`: offsets
    in characters); only `tool` reads that cursor on."""
    if size(answer) <= room:
        return answer
    data = json.dumps(answer, ensure_ascii=False).encode()
    artifact_id = await artifacts.save("content.json", data, "application/json")
    return _content_page(tool, answer, artifact_id, 0, room)


async def next_content(
    tool: str, manager: RunManager, token: str, principal: Principal, room: int
) -> dict[str, Any]:
    """The page of a content answer that `token` (a nextCursor `tool` answered) names."""
    cursor = read_cursor(token, content_kind(tool))
    try:
        chunk = await manager.read_artifact(cursor.ref, principal)
    except TaskplateError as error:
        if error.code in (ErrorCode.ARTIFACT_NOT_FOUND, ErrorCode.ARTIFACT_EXPIRED):
            raise unknown_cursor() from None
        raise
    whole = json.loads(chunk.data) if chunk.meta.get("name") == "content.json" else None
    if not isinstance(whole, dict) or cursor.offset > len(whole.get("content") or ""):
        raise unknown_cursor()
    return _content_page(tool, whole, cursor.ref, cursor.offset, room)


def _content_page(
    tool: str, whole: dict[str, Any], artifact_id: str, offset: int, room: int
) -> dict[str, Any]:
    text: str = whole["content"]
    rest, total = text[offset:], len(text)

    def put(part: str, page: dict[str, Any]) -> dict[str, Any]:
        return _with(whole, part, artifact_id, page)

    following = partial(Cursor, content_kind(tool), artifact_id)
    return fitted_page(put, following, rest, offset, total, room)


def _with(
    whole: dict[str, Any], part: str, artifact_id: str, page: dict[str, Any]
) -> dict[str, Any]:
    return {
        **whole,
        "content": part,
        "bytes": len(part.encode()),
        "artifactId": artifact_id,
        "page": page,
    }
