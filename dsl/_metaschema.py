"""The template meta-schema (JSON Schema 2020-12), published as docs/template.schema.json.

Structure only; the checker's rules do everything a schema cannot (references, types, trust).
`x-hint` keywords carry the human wording of a constraint; editors ignore them.
"""

from __future__ import annotations

from typing import Any

from taskplate.contract import STEP_ERROR_CODES

MAX_TABS_PER_SESSION = 20
MAX_RUN_TIMEOUT_MS = 900_000
ID_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"
STEP_ID_PATTERN = r"^[a-z][a-z0-9_]*$"
NAME_PATTERN = r"^[a-z_][a-zA-Z0-9_]*$"
SEMVER_PATTERN = (
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$"
)
EXPR_PATTERN = r"^\s*\$\{\{[\s\S]*\}\}\s*$"

_EXPR = {"type": "string", "pattern": EXPR_PATTERN, "x-hint": "an expression ${{ … }}"}
IDENTITY_KEYS = ("userAgent", "locale", "timezoneId", "viewport", "device", "extraHeaders")
_IDENTITY: dict[str, Any] = {
    "userAgent": {"type": "string", "minLength": 1, "maxLength": 1000},
    "locale": {
        "type": "string",
        "pattern": r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
        "x-hint": "a BCP 47 language tag such as de-DE",
    },
    "timezoneId": {"type": "string", "minLength": 1, "description": "An IANA time zone."},
    "viewport": {
        "type": "object",
        "additionalProperties": False,
        "required": ["width", "height"],
        "properties": {
            "width": {"type": "integer", "minimum": 100, "maximum": 7680},
            "height": {"type": "integer", "minimum": 100, "maximum": 4320},
        },
    },
    "device": {"type": "string", "description": "One of Playwright's device names."},
    "extraHeaders": {
        "type": "object",
        "propertyNames": {"pattern": r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$"},
        "additionalProperties": {"type": "string", "maxLength": 4000},
    },
}
BROWSER: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "description": "The browser a site sees (both engines): user agent, locale, time zone, "
    "viewport, device, extra headers; `callerMaySet`: which of them a run's options.browser "
    "may set.",
    "properties": {
        **_IDENTITY,
        "callerMaySet": {"type": "array", "items": {"enum": list(IDENTITY_KEYS)}},
    },
}


def _int_or_expr(minimum: int, maximum: int | None = None) -> dict[str, Any]:
    number: dict[str, Any] = {"type": "integer", "minimum": minimum}
    if maximum is not None:
        number["maximum"] = maximum
    span = f"{minimum}–{maximum}" if maximum is not None else f"≥ {minimum}"
    return {"anyOf": [number, _EXPR], "x-hint": f"a whole number ({span}) or an expression"}


STEP: dict[str, Any] = {
    "type": "object",
    "description": "A step: an action (`action` + `with`), a loop (`forEach` + `as` + `steps`), "
    "or a group (`steps` alone: run in order, skipped as a whole when its `when` is false).",
    "additionalProperties": False,
    "properties": {
        "id": {
            "type": "string",
            "pattern": STEP_ID_PATTERN,
            "x-hint": "a lower-case name such as open_page",
            "description": "Unique in the template; needed when something refers to the step.",
        },
        "name": {"type": "string", "description": "A human label."},
        "action": {"type": "string", "description": "A built-in action (see docs/actions.md)."},
        "with": {"type": "object", "description": "The action's arguments."},
        "forEach": {
            "anyOf": [{"type": "array"}, _EXPR],
            "x-hint": "a list or an expression yielding one",
            "description": "Items to run `steps` for.",
        },
        "as": {
            "type": "string",
            "pattern": NAME_PATTERN,
            "x-hint": "a variable name such as url",
            "description": "The name of the current item inside the loop (default `item`).",
        },
        "concurrency": _int_or_expr(1, MAX_TABS_PER_SESSION)
        | {"description": "Items in flight at once (sliding window)."},
        "steps": {
            "type": "array",
            "minItems": 1,
            "items": {"$ref": "#/$defs/step"},
            "description": "A loop's steps for each item, or a group's steps.",
        },
        "collect": {"description": "What each item contributes to the loop's `items`."},
        "enqueue": {
            "anyOf": [{"type": "array"}, _EXPR],
            "x-hint": "a list or an expression yielding one",
            "description": "Items a finished item adds to its forEach (a growing loop, such as "
            "a crawl): new items run at `depth` + 1, each once by `uniqueBy`, up to `maxItems`.",
        },
        "uniqueBy": {
            "description": "A growing loop's dedup key of an item (the item itself when absent), "
            "such as ${{ urlNormalize(url) }}."
        },
        "maxItems": _int_or_expr(1)
        | {
            "description": "The most items a growing loop runs; further enqueued items are dropped."
        },
        "when": {
            "anyOf": [{"type": "boolean"}, _EXPR],
            "x-hint": "true, false or an expression",
            "description": "Run the step only when true; otherwise it is `skipped`.",
        },
        "needs": {
            "anyOf": [
                {"type": "string", "pattern": STEP_ID_PATTERN},
                {"type": "array", "items": {"type": "string", "pattern": STEP_ID_PATTERN}},
            ],
            "x-hint": "a step id or a list of step ids",
            "description": "Earlier sibling steps this one waits for (makes the siblings a DAG).",
        },
        "retry": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "attempts": {"type": "integer", "minimum": 1, "maximum": 10},
                "backoffMs": {"type": "integer", "minimum": 0, "maximum": 60_000},
                "on": {"type": "array", "items": {"enum": [str(c) for c in STEP_ERROR_CODES]}},
            },
        },
        "timeoutMs": _int_or_expr(1, MAX_RUN_TIMEOUT_MS),
        "onError": {"enum": ["fail", "continue"]},
        "confirm": {
            "type": "string",
            "minLength": 1,
            "x-hint": "a question, with ${{ }} expressions if needed",
            "description": "Ask the caller's user this question (MCP elicitation) before the step runs.",
        },
        "onDecline": {
            "enum": ["fail", "skip"],
            "description": "A declined confirmation fails the step (CONFIRMATION_DECLINED, default) or skips it.",
        },
        "onResume": {
            "enum": ["restart"],
            "description": "On a group: when its run is resumed after its process stopped, run "
            "the group again whole, finished or not (a login, a form over pages), in the resumed "
            "run's new browser session (opened from the run's profile), rather than go on from "
            "its last finished step.",
        },
        "tab": {
            "type": "string",
            "x-hint": "new, main or an expression yielding a tab id",
            "description": "Where the step runs: `new` (a fresh tab per item), `main`, or a tab id.",
        },
    },
}

TEMPLATE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://taskplate.dev/schemas/template.schema.json",
    "title": "taskplate template",
    "description": "A declarative browser task: inputs, outputs and steps.",
    "type": "object",
    "additionalProperties": False,
    "required": ["template", "version", "steps"],
    "properties": {
        "template": {
            "type": "string",
            "pattern": ID_PATTERN,
            "x-hint": "a lower-case id such as batch_extract_pages (at most 64 characters)",
        },
        "version": {
            "type": "string",
            "pattern": SEMVER_PATTERN,
            "x-hint": "a semantic version such as 1.0.0",
        },
        "name": {"type": "string"},
        "description": {"type": "string"},
        "trust": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"enum": ["local", "remote"]},
            "description": "Caller trust levels allowed to run the template (default [local]).",
        },
        "partialSuccess": {
            "type": "object",
            "additionalProperties": False,
            "required": ["allowed"],
            "properties": {
                "allowed": {"type": "boolean"},
                "threshold": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            },
        },
        "limits": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "maxItems": {"type": "integer", "minimum": 1},
                "maxConcurrency": {"type": "integer", "minimum": 1},
                "maxTimeoutMs": {"type": "integer", "minimum": 1},
            },
        },
        "mode": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "default": {"enum": ["sync", "async", "auto"]},
                "asyncWhen": _EXPR,
            },
        },
        "session": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "keep": {"type": "boolean", "description": "Leave an auto-created session open."},
                "profile": {
                    "type": "string",
                    "description": "The profile whose latest snapshot seeds the session (default master).",
                },
            },
        },
        "browser": BROWSER,
        "inputs": {"type": "object", "description": "JSON Schema 2020-12 of the inputs."},
        "outputs": {"type": "object", "description": "JSON Schema 2020-12 of the result."},
        "steps": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/step"}},
        "output": {"description": "The run's result, built from step results."},
    },
    "$defs": {"step": STEP},
}
