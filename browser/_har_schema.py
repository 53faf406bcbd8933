"""The JSON Schema a recording must match before it is replayed: the HAR 1.2 fields that
taskplate and Playwright's `route_from_har` read, each of the type they read it as, plus what
taskplate keeps in `log._taskplate`. Anything else a HAR holds is free.

A body is embedded (`text`, base64 when `encoding` says so): a `_file` beside the HAR is refused.
"""

from __future__ import annotations

from typing import Any

_STRING = {"type": "string"}
_HEADERS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["name", "value"],
        "properties": {"name": _STRING, "value": _STRING},
    },
}
_EMBEDDED = {"not": {"required": ["_file"]}}  # a body read from another file: refused

HAR_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["log"],
    "properties": {
        "log": {
            "type": "object",
            "required": ["entries"],
            "properties": {
                "entries": {"type": "array", "items": {"$ref": "#/$defs/entry"}},
                "_taskplate": {"$ref": "#/$defs/made"},
            },
        }
    },
    "$defs": {
        "entry": {
            "type": "object",
            "required": ["request", "response"],
            "properties": {
                "startedDateTime": _STRING,
                "request": {
                    "type": "object",
                    "required": ["method", "url"],
                    "properties": {
                        "method": _STRING,
                        "url": _STRING,
                        "headers": _HEADERS,
                        "postData": {
                            "type": "object",
                            "properties": {"text": _STRING},
                            **_EMBEDDED,
                        },
                    },
                },
                "response": {
                    "type": "object",
                    "required": ["status", "headers"],
                    "properties": {
                        # -1: a request that failed as it was recorded (Playwright's)
                        "status": {"type": "integer", "minimum": -1, "maximum": 999},
                        "headers": _HEADERS,
                        "redirectURL": _STRING,
                        "content": {
                            "type": "object",
                            "properties": {"text": _STRING, "encoding": _STRING},
                            **_EMBEDDED,
                        },
                    },
                },
            },
        },
        "made": {
            "type": "object",
            "properties": {
                "template": _STRING,
                "case": _STRING,
                "answers": {"type": "array", "items": {"type": "object"}},
                "calls": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"error": {"type": "object"}},
                    },
                },
            },
        },
    },
}
