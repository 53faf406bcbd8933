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
# (a sessionId comes from create_session, as its name says: no description repeated in every tool)
SESSION_ID = {"type": "string", "minLength": 1}
TAB_ID = {"type": "string", "description": "Default: the session's main tab."}
# How many levels of properties tools/list shows of an answer (`outline`).
OUTLINE_DEPTH = 1
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
        "items": obj(
            {
                **{k: INT for k in ("total", "done", "succeeded", "failed")},
                "growing": B,  # the loop adds items as it goes: `total` is what is known so far
                "etaMs": INT,  # the known items' time left at the rate so far, once known
            },
            ["total", "done", "succeeded", "failed"],
        ),
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
        "warnings": {"type": "array", "items": S},  # its steps' warnings, each placed
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
    """The full outputSchema of a tool: its result, or the error object (isError: true).

    Clients validate structuredContent against it even for errors (the TypeScript SDK does), and
    every protocol version before 2026 wants `type: "object"` at the root.
    """
    choices = result["anyOf"] if set(result) == {"anyOf"} else [result]
    return {"type": "object", "anyOf": [*choices, ERROR]}


# An enum of more values than this is published as its type alone (errorCode's 20 codes).
_SHORT_ENUM = 8
# The keywords an outline keeps; the others (descriptions, bounds, patterns) only narrow or
# explain, and an agent pays for every character of tools/list on every turn.
_KEPT = ("type", "const", "enum")


def outline(schema: dict[str, Any], depth: int = OUTLINE_DEPTH) -> dict[str, Any]:
    """What `tools/list` publishes of an output schema: the same shape, `depth` levels of
    properties deep (an object or array below that is its type alone), without descriptions,
    bounds, patterns or long enums. Every answer valid against `schema` is valid against it
    (it only drops constraints), so a client validating structuredContent still can."""
    out = {k: schema[k] for k in _KEPT if k in schema}
    if len(out.get("enum", ())) > _SHORT_ENUM:
        del out["enum"]
        kinds = sorted({type(v).__name__ for v in schema["enum"]})
        if kinds == ["str"]:
            out["type"] = "string"
    for key in ("anyOf", "oneOf"):  # a oneOf's choices may overlap once outlined: anyOf
        if key in schema:
            out["anyOf"] = [outline(choice, depth) for choice in schema[key]]
    if depth > 0 and "properties" in schema:
        out["properties"] = {k: outline(v, depth - 1) for k, v in schema["properties"].items()}
        if schema.get("required"):
            out["required"] = schema["required"]
    if depth > 0 and isinstance(schema.get("items"), dict):
        out["items"] = outline(schema["items"], depth - 1)
    return out


# The error answer as tools/list gives it: the key that tells it apart (ERROR is the whole
# shape; docs/mcp.md describes it once rather than in every tool's schema).
ERROR_OUTLINE = {"required": ["errorCode"]}


def published(result: dict[str, Any]) -> dict[str, Any]:
    """The outputSchema tools/list gives a tool: the outline of its result, or an error. The
    root says `type: object` once for every choice."""
    choices = result["anyOf"] if set(result) == {"anyOf"} else [result]
    outlined = [outline(c) for c in choices]
    for choice in outlined:
        if choice.get("type") == "object":
            del choice["type"]
    return {"type": "object", "anyOf": [*outlined, ERROR_OUTLINE]}


def listed_inputs(schema: Any) -> Any:
    """An input schema as tools/list gives it: without the `x-` keywords, which only word the
    server's own messages (`x-message`) and mean nothing to a client, and without the bounds a
    model never comes near (a string's `minLength: 1`, an integer's `maximum` past 10**6): the
    server checks every call against the whole schema, and answers INVALID_PARAMETER naming the
    field."""
    if isinstance(schema, dict):
        return {
            k: listed_inputs(v)
            for k, v in schema.items()
            if not k.startswith("x-") and not _unreached_bound(k, v)
        }
    if isinstance(schema, list):
        return [listed_inputs(v) for v in schema]
    return schema


def _unreached_bound(key: str, value: Any) -> bool:
    return (key == "minLength" and value == 1) or (
        key == "maximum" and isinstance(value, int) and value > 1_000_000
    )
