"""Answers kept under maxArtifactInlineBytes: a run's steps cut, a large page's content, a
large value or a large screenshot kept as an artifact to read by reference.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcp_types import CallToolResult, ImageContent

from taskplate.interpreter import RunArtifacts, RunManager

from .._results import ok


def fit(answer: dict[str, Any], limit: int) -> dict[str, Any]:
    """Keep an answer under the inline limit: steps are cut first (and flagged)."""
    if len(json.dumps(answer, default=str)) <= limit or "steps" not in answer:
        return answer
    steps = answer["steps"]
    while steps and len(json.dumps({**answer, "steps": steps}, default=str)) > limit:
        steps = steps[: len(steps) // 2]
    return {**answer, "steps": steps, "stepsTruncated": True}


async def small(
    manager: RunManager, name: str, result: dict[str, Any], artifacts: RunArtifacts
) -> CallToolResult:
    """An action's answer under maxArtifactInlineBytes; the rest is an artifact."""
    inline = manager.limits.max_artifact_inline_bytes
    if name == "screenshot":
        chunk = await manager.artifacts.read(result["artifactId"])
        if len(chunk.data) * 4 // 3 + 1000 < inline:
            image = ImageContent(
                type="image", data=base64.b64encode(chunk.data).decode(), mime_type="image/png"
            )
            return ok({**result, "inlined": True}, image)
        return ok({**result, "inlined": False})
    if name == "get_page_content" and len(json.dumps(result)) > inline:
        artifact_id = await artifacts.save(
            f"content.{result['format']}", result["content"].encode(), "text/plain"
        )
        cut = result["content"].encode()[: inline * 3 // 4].decode("utf-8", errors="ignore")
        warnings = [
            *result.get("warnings", []),
            f"the content is longer than this answer may be; all of it is artifact {artifact_id}",
        ]
        return ok(
            {
                **result,
                "content": cut,
                "bytes": len(cut.encode()),
                "truncated": True,
                "artifactId": artifact_id,
                "warnings": warnings,
            }
        )
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
