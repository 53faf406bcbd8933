"""What a run is given: its id, the limits it runs under, its inputs checked against the
template's inputs schema with defaults applied, and which inputs are secrets. Pure; no store.
"""

from __future__ import annotations

import json
import secrets as random
import time
from dataclasses import dataclass
from typing import Any

import jsonschema

from taskplate.dsl import ErrorCode, TaskplateError, Template, listed, violations

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_run_id() -> str:
    """`run_` + 26 Crockford base-32 characters: 48 bits of milliseconds, then 80 random bits."""
    value = (int(time.time() * 1000) << 80) | random.randbits(80)
    chars = [_CROCKFORD[(value >> (5 * i)) & 31] for i in range(25, -1, -1)]
    return "run_" + "".join(chars)


@dataclass(frozen=True)
class Limits:
    max_concurrent_runs: int = 5
    max_run_timeout_ms: int = 900_000
    max_artifact_inline_bytes: int = 262_144
    max_tabs_per_session: int = 20
    artifact_ttl_ms: int = 86_400_000
    queue_capacity: int = 100
    max_input_bytes: int = 1_048_576

    def to_json(self) -> dict[str, int]:
        return {
            "maxConcurrentRuns": self.max_concurrent_runs,
            "maxRunTimeoutMs": self.max_run_timeout_ms,
            "maxArtifactInlineBytes": self.max_artifact_inline_bytes,
            "maxTabsPerSession": self.max_tabs_per_session,
            "artifactTtlMs": self.artifact_ttl_ms,
            "maxInputBytes": self.max_input_bytes,
        }


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def secret_names(schema: dict[str, Any]) -> set[str]:
    """Inputs that are secrets (writeOnly, format password or secret): never stored, logged or
    shown, and masked in what a language model is sent."""
    props = _properties(schema)
    return {
        k
        for k, v in props.items()
        if isinstance(v, dict)
        and (v.get("writeOnly") is True or v.get("format") in ("password", "secret"))
    }


def with_defaults(schema: dict[str, Any], inputs: dict[str, Any]) -> dict[str, Any]:
    props = _properties(schema)
    out = dict(inputs)
    for name, prop in props.items():
        if name not in out and isinstance(prop, dict) and "default" in prop:
            out[name] = json.loads(json.dumps(prop["default"]))
    return out


def check_inputs(template: Template, inputs: Any) -> dict[str, Any]:
    if not isinstance(inputs, dict):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER, "inputs must be an object", "Pass inputs as a JSON object."
        )
    filled = with_defaults(template.inputs_schema, inputs)
    validator = jsonschema.Draft202012Validator(
        template.inputs_schema, format_checker=jsonschema.FormatChecker()
    )
    problems = violations(validator, filled)
    if problems:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"inputs do not match the template's inputs schema: {listed(problems)}",
            "Fix the inputs (list_task_templates shows the inputs schema).",
            {"violations": problems},
        )
    return filled
