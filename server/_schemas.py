"""Output schemas of the MCP tools, exactly the contract of SPEC §8 (JSON Schema 2020-12).

Data only; the tools publish them and docs/contract/ examples are checked against them.
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
PROGRESS = obj(
    {
        "totalSteps": INT,
        "doneSteps": INT,
        "items": obj({k: INT for k in ("total", "done", "succeeded", "failed")}),
    },
    ["totalSteps", "doneSteps"],
)
ARTIFACT = obj({"artifactId": S, "type": S, "mimeType": S, "size": INT, "name": S})

RUNTIME_PROFILE = obj(
    {
        "runtimeVersion": S,
        "trustLevel": {"enum": ["local", "remote"]},
        "limits": LIMITS,
        "browser": obj({"name": S, "version": S}),
    }
)
TEMPLATE_INFO = obj(
    {
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
)
LIST_TEMPLATES = obj({"templates": {"type": "array", "items": TEMPLATE_INFO}})
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
        "stepsTruncated": B,
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
QUEUED = obj({"runId": S, "status": {"const": "queued"}, "createdAt": S})
RUN_OR_QUEUED = {"anyOf": [RUN, QUEUED]}
LIST_RUNS = obj(
    {
        "runs": {
            "type": "array",
            "items": obj(
                {"runId": S, "templateId": S, "status": STATUS, "createdAt": S, "updatedAt": S}
            ),
        },
        "total": INT,
    }
)
CANCEL = obj({"cancelRequested": B, "currentStatus": STATUS})
RESUME = obj({"runId": S, "resumeRequested": B, "currentStatus": STATUS})
ARTIFACT_CHUNK = obj(
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

SESSION = obj(
    {"sessionId": S, "profileId": {"type": ["string", "null"]}, "tabs": INT, "createdAt": S}
)
SESSIONS = obj({"sessions": {"type": "array", "items": SESSION}})
TABS = obj({"tabs": {"type": "array", "items": obj({"tabId": S, "url": S, "title": S, "main": B})}})
CLOSED = obj({"closed": B})
SCRAPE = obj(
    {
        "url": S,
        "format": S,
        "content": S,
        "bytes": INT,
        "truncated": B,
        "artifactId": S,
        "title": S,
        "status": {"type": ["integer", "null"]},
    },
    ["url", "format"],
)
RUN_STEPS = obj(
    {
        "runId": S,
        "status": STATUS,
        "results": {"type": "object"},
        "steps": {"type": "array"},
        "error": RUN_ERROR,
    },
    ["runId", "status", "results", "steps"],
)
SAVED_TEMPLATE = obj(
    {
        "templateId": S,
        "version": S,
        "path": S,
        "inputs": {"type": "array", "items": S},
        "secretInputs": {"type": "array", "items": S},
        "steps": INT,
        "text": S,
    }
)


def answers(result: dict[str, Any]) -> dict[str, Any]:
    """The published outputSchema of a tool: its result, or the error object (isError: true).

    Clients validate structuredContent against it even for errors (the TypeScript SDK does), and
    every protocol version before 2026 wants `type: "object"` at the root.
    """
    choices = result["anyOf"] if set(result) == {"anyOf"} else [result]
    return {"type": "object", "anyOf": [*choices, ERROR]}
