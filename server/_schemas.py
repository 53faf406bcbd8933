"""The schema pieces several MCP tools share, exactly the contract of SPEC §8 (JSON Schema
2020-12): a run, a session, the error answer, ids and bounds. Data only; each tool declares its
own schemas beside it (`server/tools/`), and docs/contract/ examples are checked against them.
"""

from __future__ import annotations

from typing import Any

from taskplate.contract import ErrorCode

S: dict[str, Any] = {"type": "string"}
INT: dict[str, Any] = {"type": "integer"}
B: dict[str, Any] = {"type": "boolean"}
ANY: dict[str, Any] = {}
# Bounds of the numbers callers send, refused by the input schemas before any work starts:
MAX_MS = 2**31 - 1  # a run's timeoutMs (about 24.8 days; the effective one is smaller still)
MAX_OFFSET = 2**53 - 1  # an offset into runs or an artifact: the largest exact JSON integer
PROFILE_ID = {"type": "string", "pattern": "^[a-zA-Z0-9._-]{1,64}$"}
ID = {"type": "string", "minLength": 1}  # a runId or artifactId a caller sends
SESSION_ID = {"type": "string", "minLength": 1, "description": "From create_session."}
TAB_ID = {"type": "string", "description": "A tab of the session (default: its main tab)."}
STATUS = {
    "enum": [
        "queued",
        "running",
        "waiting_for_human",
        "succeeded",
        "failed",
        "partial_success",
        "canceled",
    ]
}


def obj(
    props: dict[str, Any], required: list[str] | None = None, extra: bool = True
) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "required": required if required is not None else list(props),
    }
    if not extra:
        schema["additionalProperties"] = False
    return schema


ERROR = obj(
    {
        "error": S,
        "errorCode": {"enum": [str(code) for code in ErrorCode]},
        "recoverHint": {"type": "string", "minLength": 1},
        "details": {"type": "object"},
    },
    extra=False,
)
# A failed run's `error`: the same fields, as the run stored them.
RUN_ERROR = obj({"error": S, "errorCode": S, "recoverHint": S, "details": {"type": "object"}})
PROGRESS = obj(
    {
        "totalSteps": INT,
        "doneSteps": INT,
        "items": obj({k: INT for k in ("total", "done", "succeeded", "failed")}),
    },
    ["totalSteps", "doneSteps"],
)
ARTIFACT = obj({"artifactId": S, "type": S, "mimeType": S, "size": INT, "name": S})

# One page of a long answer (server/_paging.py): where it starts, how much it holds, of how much
PAGE = obj(
    {"offset": INT, "returned": INT, "total": INT, "nextCursor": {"type": ["string", "null"]}}
)
RUN = obj(
    {
        "runId": S,
        "templateId": S,
        "templateVersion": S,
        "status": STATUS,
        "progress": PROGRESS,
        "metrics": obj({"elapsedMs": INT}),
        "createdAt": S,
        "updatedAt": S,
        "sessionId": S,
        "result": ANY,
        "error": RUN_ERROR,
        "artifacts": {"type": "array", "items": ARTIFACT},
        "steps": {"type": "array", "items": {"type": "object"}},
        "resultPage": {**PAGE, "properties": {**PAGE["properties"], "field": S}},
        "stepsPage": PAGE,
        "waitingFor": obj(
            {
                "reason": S,
                "url": S,
                "screenshotArtifactId": {"type": ["string", "null"]},
                "window": B,
                "windowError": S,
                "since": S,
                "timeoutAt": S,
                "resumeWith": S,
            },
            ["reason", "url"],
        ),
    },
    [
        "runId",
        "templateId",
        "templateVersion",
        "status",
        "progress",
        "metrics",
        "createdAt",
        "updatedAt",
    ],
)
SESSION = obj(
    {"sessionId": S, "profileId": {"type": ["string", "null"]}, "tabs": INT, "createdAt": S}
)


def answers(result: dict[str, Any]) -> dict[str, Any]:
    """The published outputSchema of a tool: its result, or the error object (isError: true).

    Clients validate structuredContent against it even for errors (the TypeScript SDK does), and
    every protocol version before 2026 wants `type: "object"` at the root.
    """
    choices = result["anyOf"] if set(result) == {"anyOf"} else [result]
    return {"type": "object", "anyOf": [*choices, ERROR]}
