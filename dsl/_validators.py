"""The one place a JSON Schema 2020-12 validator is built (`validator_for`) and the one quick check
before jsonschema explains a failure (`schema_failures`). Imports jsonschema only when asked.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from ._schema_fast import is_valid

if TYPE_CHECKING:
    import jsonschema

# Validators kept by schema (its identity, and whether formats are checked), the schema kept
# beside its validator so that an id reused by another schema is never mistaken for it. Bounded:
# a server that reloads its templates builds validators for new schemas as long as it lives.
_KEPT: dict[tuple[int, bool], tuple[Any, jsonschema.Draft202012Validator]] = {}
MAX_KEPT = 512


def validator_for(schema: Any, *, formats: bool = False) -> jsonschema.Draft202012Validator:
    """A validator of `schema`, built once per schema; `formats`: the formats taskplate
    enforces (`uri`) are checked too, as run inputs and action arguments are."""
    key = (id(schema), formats)
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is schema:
        return kept[1]
    import jsonschema

    from ._formats import format_checker

    checker = format_checker() if formats else None
    validator = jsonschema.Draft202012Validator(schema, format_checker=checker)
    if len(_KEPT) >= MAX_KEPT:
        del _KEPT[next(iter(_KEPT))]  # the oldest
    _KEPT[key] = (schema, validator)
    return validator


def schema_failures(
    schema: Any, instance: Any, most: int | None = None
) -> list[jsonschema.ValidationError]:
    """jsonschema's errors of `instance` (its first `most`), asked for only when the quick
    check (`is_valid`, no jsonschema) finds it invalid."""
    if is_valid(schema, instance):
        return []
    return list(itertools.islice(validator_for(schema).iter_errors(instance), most))
