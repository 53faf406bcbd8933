"""The fast 2020-12 meta-schema check gives the official meta-schema's verdict on any schema."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskplate.dsl._json_schema_check import schema_errors

OFFICIAL = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
CASES: list[Any] = [
    {"type": "strin"},
    {"type": "object", "properties": {"a": {"type": "strin"}}},
    {"minimum": "low"},
    {"items": {"items": {"type": 3}}},
    {"required": "a"},
    {"$defs": {"x": {"enum": 3}}},
    {"anyOf": []},
    {"additionalProperties": {"minLength": -1}},
    {"patternProperties": {"a": {"format": 1}}},
    {"type": "object", "properties": {"a": {"type": ["string", "null"], "default": "x"}}},
    True,
    False,
    3,
    {"dependentSchemas": {"a": {"type": "x"}}},
    {"prefixItems": [{"type": "q"}]},
    {"if": {"type": "z"}},
    {"contentMediaType": 3},
    {"unevaluatedProperties": {"type": "z"}},
    {"$ref": 3},
    {"definitions": {"a": {"type": "z"}}},
    {"dependencies": {"a": ["b", 1]}},
    {"not": {"not": {"type": "zz"}}},
]


def same_verdict(schema: Any) -> None:
    assert bool(list(OFFICIAL.iter_errors(schema))) == bool(list(schema_errors(schema))), schema


@pytest.mark.parametrize("schema", CASES)
def test_agrees_with_the_official_meta_schema(schema: Any) -> None:
    same_verdict(schema)


KEYWORDS = [
    "type",
    "properties",
    "items",
    "minimum",
    "required",
    "enum",
    "anyOf",
    "not",
    "format",
    "additionalProperties",
    "minItems",
    "pattern",
    "$defs",
    "default",
    "const",
    "prefixItems",
]
values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.sampled_from(["string", "object", "x", "a"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYWORDS), inner, max_size=4)
    ),
    max_leaves=15,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_agrees_on_random_schemas(schema: Any) -> None:
    same_verdict(schema)
