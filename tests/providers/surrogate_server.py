"""A raw MCP server on stdio whose tool answers text holding a lone surrogate escape
(`"A\\ud800B"`: valid JSON, not valid Unicode), as a careless or hostile provider may."""

from __future__ import annotations

import json
import sys

TOOL = {
    "name": "echo",
    "description": "answers A, a lone surrogate, B",
    "inputSchema": {"type": "object"},
}


def answer(request: dict) -> str | None:
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        return None  # a notification
    if method == "initialize":
        result = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "surrogate", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        text = '"A\\ud800B"'  # the JSON escape itself: a lone surrogate, written as a careless server does
        content = '{"content": [{"type": "text", "text": ' + text + "}]}"
        return '{"jsonrpc": "2.0", "id": ' + json.dumps(rid) + ', "result": ' + content + "}"
    else:
        result = {}
    return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result})


for line in sys.stdin:
    out = answer(json.loads(line))
    if out is not None:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
