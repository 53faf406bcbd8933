"""Turns jsonschema validation errors into one-line messages a template author understands.

Shared by the meta-schema check and the action-argument check; knows no rule names.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from taskplate.contract import lazy_dataclass

if TYPE_CHECKING:  # imported only when there is an error to explain
    import jsonschema

from ._validators import schema_failures
from ._yaml import escape_pointer
from .expr import suggest

# jsonschema explains an error in about a millisecond: a check reads this many of one
# instance's errors (its first ones; a file with more has others to fix first).
MAX_SCHEMA_ERRORS = 200

_KIND = {
    "object": "a map",
    "array": "a list",
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


@lazy_dataclass(frozen=True)
class SchemaProblem:
    pointer: str
    message: str
    at_key: bool = False  # point at the key rather than the value


def validation_errors(schema: dict[str, Any], instance: Any) -> list[jsonschema.ValidationError]:
    """jsonschema's errors, asked for only when the quick check finds the instance invalid."""
    return schema_failures(schema, instance, MAX_SCHEMA_ERRORS)


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    for name, kind in (("number", float), ("string", str), ("array", list), ("object", dict)):
        if isinstance(value, kind):
            return name
    return "null"


def _show(value: Any) -> str:
    """A value as JSON, shortened; what an expression computes (unknown here) as `${{ … }}`."""
    text = json.dumps(value, ensure_ascii=False, default=lambda _: "${{ … }}")
    return text if len(text) <= 40 else text[:37] + "…"


def pointer_of(path: Any) -> str:
    return "".join(f"/{escape_pointer(p)}" for p in path)


def _field(path: list[Any], noun: str) -> str:
    names = [p for p in path if isinstance(p, str)]
    return f'"{names[-1]}"' if names else noun


def kinds_text(schema_type: Any) -> str:
    kinds = [schema_type] if isinstance(schema_type, str) else list(schema_type)
    return " or ".join(_KIND.get(k, k) for k in kinds)


def explain(
    error: jsonschema.ValidationError, where: str, noun: str, key_word: str = "key"
) -> Iterator[SchemaProblem]:
    """Problems for one validation error; `where` names the object holding the failing value."""
    path = list(error.absolute_path)
    pointer = pointer_of(path)
    field = _field(path, noun)
    schema = error.schema if isinstance(error.schema, dict) else {}
    hint = schema.get("x-hint")
    validator, instance = error.validator, error.instance
    value: Any = error.validator_value
    if validator == "additionalProperties" and isinstance(instance, dict):
        allowed = list(schema.get("properties", {}))
        for extra in sorted(set(instance) - set(allowed)):
            text = (
                f'unknown {key_word} "{extra}" in {where}{suggest(extra, allowed, key_word + "s")}'
            )
            yield SchemaProblem(f"{pointer}/{escape_pointer(extra)}", text, at_key=True)
    elif validator == "required" and isinstance(instance, dict):
        for name in value:
            if name not in instance:
                yield SchemaProblem(
                    pointer, f'{where} is missing required {key_word} "{name}"', at_key=True
                )
    elif validator in ("anyOf", "oneOf") and (inside := _map_branch_errors(error)):
        # A map given where a map is one choice: say what is wrong inside it, not the choices.
        for inner in inside:
            yield from explain(inner, field, noun)
    elif "x-message" in schema:
        yield SchemaProblem(pointer, f"{where} {schema['x-message']}")
    elif hint:
        yield SchemaProblem(pointer, f"{field} must be {hint}, got {_show(instance)}")
    elif validator == "type":
        yield SchemaProblem(
            pointer, f"{field} must be {kinds_text(value)}, got {_KIND[_kind_of(instance)]}"
        )
    elif validator in ("enum", "const"):
        options = value if validator == "enum" else [value]
        yield SchemaProblem(
            pointer,
            f"{field} must be one of {', '.join(_show(o) for o in options)}; got {_show(instance)}",
        )
    elif validator in ("minimum", "exclusiveMinimum"):
        bound = "at least" if validator == "minimum" else "more than"
        yield SchemaProblem(pointer, f"{field} must be {bound} {value}, got {_show(instance)}")
    elif validator in ("maximum", "exclusiveMaximum"):
        bound = "at most" if validator == "maximum" else "less than"
        yield SchemaProblem(pointer, f"{field} must be {bound} {value}, got {_show(instance)}")
    elif validator == "minItems":
        yield SchemaProblem(
            pointer, f"{field} needs at least {value} item{'s' if value != 1 else ''}"
        )
    elif validator == "maxItems":
        yield SchemaProblem(pointer, f"{field} allows at most {value} items")
    elif validator == "uniqueItems":
        yield SchemaProblem(pointer, f"{field} must not repeat items")
    elif validator == "pattern":
        yield SchemaProblem(pointer, f"{field} must match {value}, got {_show(instance)}")
    elif validator in ("anyOf", "oneOf") and error.context:
        from jsonschema.exceptions import best_match

        best = best_match(error.context)
        yield from explain(best, where, noun, key_word)
    else:
        yield SchemaProblem(pointer, f"{field}: {error.message}")


def _map_branch_errors(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    branches = error.validator_value
    if not isinstance(error.instance, dict) or not isinstance(branches, list):
        return []
    maps = {i for i, b in enumerate(branches) if isinstance(b, dict) and b.get("type") == "object"}
    if len(maps) != 1:
        return []
    return [e for e in error.context or () if e.relative_schema_path[0] in maps]


def violations(validator: jsonschema.protocols.Validator, instance: Any) -> list[dict[str, str]]:
    """Every way `instance` breaks the validator's schema: a JSON pointer and a message each."""
    errors = sorted(
        validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path]
    )
    return [{"pointer": pointer_of(e.absolute_path) or "/", "message": e.message} for e in errors]


def listed(found: list[dict[str, str]], most: int = 5) -> str:
    """`/a: message; /b: message` for an error's one line."""
    return "; ".join(f"{v['pointer']}: {v['message']}" for v in found[:most])
