"""The JSON Schema of a test case file (NAME.test.yaml): docs/test-case.schema.json is
generated from it (`dsl docs --write`); `_cases.py` checks files against it.
"""

from __future__ import annotations

from typing import Any

CASE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://taskplate.dev/schemas/test-case.schema.json",
    "title": "taskplate test cases (NAME.test.yaml)",
    "description": "Cases of one template: `dsl record` writes them, `dsl test` runs them offline "
    "from their recordings (or live with --live) and checks their expectations. "
    "See docs/testing.md.",
    "type": "object",
    "additionalProperties": False,
    "required": ["template", "cases"],
    "properties": {
        "template": {
            "type": "string",
            "minLength": 1,
            "description": "The template's file, relative to this file.",
        },
        "cases": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/case"}},
    },
    "$defs": {
        "case": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name", "recording", "expect"],
            "properties": {
                "name": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"},
                "inputs": {
                    "type": "object",
                    "description": "The template's inputs; a secret "
                    "stands as {$env: "
                    "TASKPLATE_SECRET_<INPUT>}.",
                    "additionalProperties": {"$ref": "#/$defs/input"},
                },
                "recording": {
                    "type": "string",
                    "minLength": 1,
                    "description": "The HAR the case replays, relative to this file.",
                },
                "clock": {
                    "type": "string",
                    "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$",
                    "description": "What now() answers while the case "
                    "replays (the time it was "
                    "recorded).",
                },
                "expect": {"$ref": "#/$defs/expect"},
            },
        },
        "input": {
            "description": "A value; a secret's is {$env: TASKPLATE_SECRET_<INPUT>}, read live."
        },
        "expect": {
            "type": "object",
            "additionalProperties": False,
            "minProperties": 1,
            "properties": {
                "status": {"enum": ["succeeded", "partial_success", "failed", "canceled"]},
                "output": {
                    "type": "object",
                    "additionalProperties": False,
                    "minProperties": 1,
                    "maxProperties": 1,
                    "description": "One way to compare the run's "
                    "result: equals (exactly), "
                    "subset (these keys and list "
                    "items, the rest free), at "
                    "(JSON pointers to values) or "
                    "schema (a JSON Schema it must "
                    "match).",
                    "properties": {
                        "equals": {},
                        "subset": {},
                        "at": {"type": "object", "propertyNames": {"pattern": "^(/.*)?$"}},
                        "schema": {"type": "object"},
                    },
                },
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "minProperties": 1,
                    "properties": {
                        "loop": {
                            "type": "string",
                            "description": "The forEach whose items these are, by its path of "
                            "step ids (pages, or pages/rows for a loop inside it); default the "
                            "outermost that ran.",
                        },
                        "count": {"type": "integer", "minimum": 0},
                        "succeeded": {"type": "integer", "minimum": 0},
                        "failed": {"type": "integer", "minimum": 0},
                        "success": {"type": "array", "items": {"type": "boolean"}},
                    },
                },
            },
        },
    },
}
