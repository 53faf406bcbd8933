"""What a run is given: its id, the limits it runs under, its inputs checked against the
template's inputs schema with defaults applied, which inputs are secrets, and the options it
keeps. Pure; no store.
"""

from __future__ import annotations

import json
import secrets as random
import time
from dataclasses import dataclass
from typing import Any

from taskplate.contract import MAX_VALUE_DEPTH, ErrorCode, TaskplateError, TrustLevel, value_depth
from taskplate.dsl import Template, listed, render, truthy, validator_for, violations

from .._tracing import TraceMode, trace_mode
from ..heal import narrowed

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
    if value_depth(inputs) > MAX_VALUE_DEPTH:  # before any schema walk recurses into it
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"inputs nest deeper than {MAX_VALUE_DEPTH} levels, more than a run may hold",
            "Pass flatter inputs.",
            {"maxDepth": MAX_VALUE_DEPTH},
        )
    filled = with_defaults(template.inputs_schema, inputs)
    problems = violations(validator_for(template.inputs_schema, formats=True), filled)
    if problems:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"inputs do not match the template's inputs schema: {listed(problems)}",
            "Fix the inputs (list_task_templates shows the inputs schema).",
            {"violations": problems},
        )
    return filled


def check_trust(template: Template, trust: TrustLevel) -> None:
    """TRUST_LEVEL_NOT_ALLOWED when the template does not allow this kind of caller."""
    if trust not in template.trust:
        raise TaskplateError(
            ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
            f'template "{template.id}" allows {", ".join(template.trust)} callers; this connection is {trust}',
            "Run it over stdio (local trust), or use a template that allows remote callers.",
        )


def decide_mode(template: Template, inputs: dict[str, Any], options: dict[str, Any]) -> str:
    """sync or async: as asked, else the template's default (`auto`: its asyncWhen)."""
    mode = options.get("mode") or template.mode_default
    if mode != "auto":
        return str(mode)
    if template.async_when is not None:
        try:
            return "async" if truthy(render(template.async_when, {"inputs": inputs})) else "sync"
        except Exception:
            return "sync"
    return "sync"


def check_timeout(timeout_ms: Any, limits: Limits) -> None:
    """A caller's run timeout is a whole number of ms from 1 to the server's maximum: 0, a
    negative or a larger one is refused before anything starts (not ignored, not clamped)."""
    if timeout_ms is None:
        return
    most = limits.max_run_timeout_ms
    if (
        isinstance(timeout_ms, bool)
        or not isinstance(timeout_ms, int)
        or not 1 <= timeout_ms <= most
    ):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"timeoutMs must be a whole number of ms from 1 to {most}, got {str(timeout_ms)[:40]}",
            f"Give a run timeout of at most {most} ms (maxRunTimeoutMs), or none for the "
            "template's or the server's.",
            {"timeoutMs": str(timeout_ms)[:40], "maxRunTimeoutMs": most},
        )


def effective_timeout_ms(limits: Limits, template: Template, options: dict[str, Any]) -> int:
    """The smallest of the server's, the template's and the caller's timeouts."""
    check_timeout(options.get("timeoutMs"), limits)
    candidates = [limits.max_run_timeout_ms]
    if template.limits.max_timeout_ms:
        candidates.append(template.limits.max_timeout_ms)
    if options.get("timeoutMs") is not None:
        candidates.append(int(options["timeoutMs"]))
    return min(candidates)


def run_options(
    options: dict[str, Any],
    template: Template,
    limits: Limits,
    trust: TrustLevel,
    trace_default: TraceMode | None,
    profile_id: str | None,
) -> dict[str, Any]:
    """The caller's options as the run keeps them: its trace mode, effective timeout, trust
    and profile settled."""
    options["trace"] = str(trace_mode(options.get("trace"), trust, trace_default))
    options["effectiveTimeoutMs"] = effective_timeout_ms(limits, template, options)
    options["trust"] = str(trust)
    options["heal"] = narrowed(template.heal, options.get("heal"))  # never wider than its own
    if profile_id:
        options["profileId"] = profile_id
    return options


def profile_for(template: Template, inputs: dict[str, Any], profile_id: str | None) -> str:
    """The login profile a run's own session starts from: the caller's, the template's, else
    master."""
    named = render(template.profile, {"inputs": inputs}) if template.profile is not None else None
    return str(profile_id or named or "master")
