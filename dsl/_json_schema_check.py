"""Checks that a template's inputs/outputs are valid JSON Schema 2020-12, quickly.

The official meta-schema resolves `$dynamicRef` on every node, which costs milliseconds per
template. With no extension vocabularies in play every `$dynamicRef: "#meta"` resolves to the
root, so the seven vocabulary meta-schemas merge into one static schema with the same verdicts.
"""

from __future__ import annotations

import functools
import json
import pkgutil
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ._validators import schema_failures

if TYPE_CHECKING:
    import jsonschema

_BASE = "https://json-schema.org/draft/2020-12/meta/"
_VOCABULARIES = (
    "core",
    "applicator",
    "unevaluated",
    "validation",
    "meta-data",
    "format-annotation",
    "content",
)


def _static(node: Any) -> Any:
    if isinstance(node, dict):
        if node.get("$dynamicRef") == "#meta":
            return {"$ref": "#", **{k: _static(v) for k, v in node.items() if k != "$dynamicRef"}}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("meta/") and "#" in ref:
            node = {**node, "$ref": "#" + ref.split("#", 1)[1]}  # every $defs now sits at the root
        return {k: _static(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_static(v) for v in node]
    return node


def flattened_meta_schema() -> dict[str, Any]:
    """Built from jsonschema's own copies; shipped as meta_schema_2020_12.json (make docs)."""
    import jsonschema
    from jsonschema_specifications import REGISTRY

    root = jsonschema.Draft202012Validator.META_SCHEMA
    properties: dict[str, Any] = {}
    defs: dict[str, Any] = {}
    for name in _VOCABULARIES:
        vocabulary = REGISTRY.contents(_BASE + name)
        properties.update(vocabulary.get("properties", {}))
        defs.update(vocabulary.get("$defs", {}))
    properties.update(root.get("properties", {}))
    flat: dict[str, Any] = _static(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": ["object", "boolean"],
            "properties": properties,
            "$defs": defs,
        }
    )
    return flat


SHIPPED = "meta_schema_2020_12.json"


@functools.cache
def shipped_meta_schema() -> dict[str, Any]:
    # pkgutil reads package data from a folder, a wheel or a zipapp through the loader, as
    # the grammar is read: importlib.resources' readers would load zipfile on every dsl validate
    data = pkgutil.get_data(__package__ or "taskplate.dsl", SHIPPED)
    assert data is not None, SHIPPED
    schema: dict[str, Any] = json.loads(data)
    return schema


def schema_errors(schema: Any) -> Iterator[jsonschema.ValidationError]:
    """Every way `schema` breaks the 2020-12 meta-schema, best sub-error first for anyOf."""
    failures = schema_failures(shipped_meta_schema(), schema)
    if not failures:
        return
    from jsonschema.exceptions import best_match

    for error in failures:
        yield best_match(error.context) if error.context else error
