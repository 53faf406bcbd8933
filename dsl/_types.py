"""Static types of expression values, inferred from JSON Schemas and action result schemas.

A deliberately small lattice: a kind, item type for arrays, known properties for objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taskplate.contract import field, lazy_dataclass


@lazy_dataclass(frozen=True)
class Type:
    kind: str = "any"
    items: Type | None = None
    props: Mapping[str, Type] = field(default_factory=dict)
    closed: bool = False  # an object whose unknown properties are mistakes

    def describe(self) -> str:
        if self.kind == "array" and self.items is not None and self.items.kind != "any":
            return f"array of {self.items.kind}"
        return self.kind

    def prop(self, name: str) -> Type | None:
        """The type of a property; None when the object is closed and has no such property."""
        if name in self.props:
            return self.props[name]
        return None if self.closed else ANY


ANY = Type()
NULL = Type("null")
BOOLEAN = Type("boolean")
NUMBER = Type("number")
STRING = Type("string")


def array_of(item: Type) -> Type:
    return Type("array", items=item)


def object_of(props: Mapping[str, Type], closed: bool = True) -> Type:
    return Type("object", props=dict(props), closed=closed)


def of_value(value: Any) -> Type:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int | float):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, list):
        return array_of(join_all([of_value(v) for v in value]))
    if isinstance(value, dict):
        return object_of({k: of_value(v) for k, v in value.items()})
    return ANY


def join(a: Type, b: Type) -> Type:
    """The type of a value that is one of two types."""
    if a == b:
        return a
    if a.kind == "null":
        return b
    if b.kind == "null":
        return a
    if a.kind == b.kind and a.kind in ("boolean", "number", "string"):
        return a
    if a.kind == b.kind == "array":
        return array_of(join(a.items or ANY, b.items or ANY))
    return ANY


def join_all(types: list[Type]) -> Type:
    """The type of a list item drawn from these types (any for an empty list)."""
    if not types:
        return ANY
    result = types[0]
    for t in types[1:]:
        result = join(result, t)
    return result


def from_schema(schema: Any, depth: int = 0) -> Type:
    """A JSON Schema's type; anything it cannot pin down is `any`."""
    if not isinstance(schema, dict) or depth > 20:
        return ANY
    kind = schema.get("type")
    if isinstance(kind, list):
        non_null = [k for k in kind if k != "null"]
        kind = non_null[0] if len(non_null) == 1 else None
    if kind is None:
        if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
            types = {of_value(v).kind for v in schema["enum"]}
            return Type(types.pop()) if len(types) == 1 else ANY
        if "const" in schema:
            return of_value(schema["const"])
        if "properties" in schema:
            kind = "object"
        elif "items" in schema:
            kind = "array"
    if kind in ("integer", "number"):
        return NUMBER
    if kind in ("string", "boolean", "null"):
        return Type(kind)
    if kind == "array":
        return array_of(from_schema(schema.get("items"), depth + 1))
    if kind == "object":
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        extra = schema.get("additionalProperties")
        closed = bool(props) and (extra is None or extra is False)
        if "patternProperties" in schema:
            closed = False
        return object_of({k: from_schema(v, depth + 1) for k, v in props.items()}, closed)
    return ANY


def schema_of(value_type: Type, depth: int = 0) -> dict[str, Any]:
    """A type as a JSON Schema that every value of it satisfies: each part may be null too (an
    expression's value may be missing at run time), objects stay open; `any` is `{}`."""
    if value_type.kind == "any" or depth > 20:
        return {}
    if value_type.kind == "null":
        return {"type": "null"}
    schema: dict[str, Any] = {"type": [value_type.kind, "null"]}
    if value_type.kind == "array" and value_type.items is not None:
        items = schema_of(value_type.items, depth + 1)
        schema |= {"items": items} if items else {}
    if value_type.kind == "object" and value_type.props:
        props = {k: schema_of(v, depth + 1) for k, v in value_type.props.items()}
        schema["properties"] = props
    return schema


def schema_kinds(schema: Any) -> set[str] | None:
    """The kinds a schema accepts, or None when it does not say."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, str):
        kind = [kind]
    if not isinstance(kind, list):
        return None
    return {"number" if k == "integer" else str(k) for k in kind}


def fits(value_type: Type, schema: Any) -> bool:
    """Whether a statically known type can satisfy a schema's declared type."""
    kinds = schema_kinds(schema)
    if kinds is None or value_type.kind in ("any", "null"):
        return True
    return value_type.kind in kinds
