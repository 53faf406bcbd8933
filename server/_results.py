"""Tool answers in the contract's shape: structuredContent (and the same JSON as text) for
results, `isError` with {error, errorCode, recoverHint, details} for failures.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, ImageContent, TextContent

from taskplate.contract import ErrorCode, TaskplateError


def ok(result: dict[str, Any], *extra: ImageContent) -> CallToolResult:
    text = TextContent(type="text", text=json.dumps(result, ensure_ascii=False))
    return CallToolResult(content=[*extra, text], structured_content=result)


def failed(error: TaskplateError) -> CallToolResult:
    body = error.to_json()
    if not body["recoverHint"]:
        body["recoverHint"] = _DEFAULT_HINTS.get(error.code, "See the error message.")
    text = TextContent(type="text", text=json.dumps(body, ensure_ascii=False))
    return CallToolResult(content=[text], structured_content=body, is_error=True)


_DEFAULT_HINTS = {
    ErrorCode.EXECUTION_ERROR: "Check the arguments and the page, then retry.",
    ErrorCode.INVALID_PARAMETER: "Fix the arguments (the tool's input schema lists them).",
}
