"""The quick yes/no schema check answers as jsonschema does, on every schema the checker asks it
about: the template meta-schema, JSON Schema's own meta-schema and every action's arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from taskplate.dsl import TEMPLATE_SCHEMA
from taskplate.dsl._json_schema_check import shipped_meta_schema
from taskplate.dsl._schema_fast import is_valid
from taskplate.dsl._values import DYNAMIC
from taskplate.stdlib import REGISTRY

ROOT = Path(__file__).parents[2]
FILES = sorted((ROOT / "tests" / "dsl").glob("*/**/*.yaml")) + sorted(
    p for p in (ROOT / "templates").glob("*.yaml") if not p.name.endswith(".test.yaml")
)


def _loaded(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError:
        return None


def _same(schema: dict[str, Any], instance: Any) -> None:
    expected = jsonschema.Draft202012Validator(schema).is_valid(instance)
    assert is_valid(schema, instance) is expected, instance


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_templates_and_their_schemas_get_jsonschemas_verdict(path: Path) -> None:
    data = _loaded(path)
    _same(TEMPLATE_SCHEMA, data)
    if isinstance(data, dict):
        for key in ("inputs", "outputs"):
            if key in data:
                _same(shipped_meta_schema(), data[key])
        steps = data.get("steps") if isinstance(data.get("steps"), list) else []
        for step in steps:
            spec = REGISTRY.get(step.get("action")) if isinstance(step, dict) else None
            if spec is not None and isinstance(step.get("with", {}), dict):
                _same(spec.args_schema, step.get("with", {}))


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 100_000)
    | st.floats(-10, 1e6, allow_nan=False)
    | st.sampled_from(["", "a", "#x", "main", "new", "https://a.test/", "input", "json", "png"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["selector", "url", "ms", "fields", "name", "format", "all", "type", "x"]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(REGISTRY)), JSON)
def test_random_arguments_get_jsonschemas_verdict(action: str, args: Any) -> None:
    _same(REGISTRY[action].args_schema, args)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_random_schemas_get_the_meta_schemas_verdict(schema: Any) -> None:
    _same(shipped_meta_schema(), schema)


def test_a_computed_value_fits_any_schema_and_unknown_keywords_are_not_guessed() -> None:
    fields = REGISTRY["extract"].args_schema
    assert is_valid(fields, {"fields": {"p": {"selector": DYNAMIC, "type": "number"}}})
    assert not is_valid(fields, {"fields": {"p": {"selector": DYNAMIC, "type": "money"}}})
    assert is_valid({"if": {}, "then": {}}, 1) is None


def test_an_unknown_keyword_behind_a_ref_is_left_to_jsonschema() -> None:
    """A `$ref` target is compiled when first reached: a keyword it does not know there is an
    answer of None (ask jsonschema), never an exception."""
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"if": {"type": "string"}, "then": {"minLength": 2}}},
    }
    assert is_valid(schema, {"a": "xy"}) is None
    assert is_valid(schema, {"a": "xy"}) is None  # and kept so
