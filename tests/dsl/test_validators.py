"""One jsonschema helper (#52): a validator is built in dsl/_validators.py only, once per schema,
and jsonschema explains only what the quick check finds invalid."""

from __future__ import annotations

import re
from pathlib import Path

from taskplate.dsl import schema_failures, validator_for

ROOT = Path(__file__).parents[2]
PRODUCT = ("contract", "dsl", "interpreter", "stdlib", "browser", "providers", "server", "cli")


def test_a_validator_is_built_in_one_place_only() -> None:
    built = re.compile(r"Draft202012Validator\(")
    found = [
        str(path.relative_to(ROOT))
        for folder in PRODUCT
        for path in sorted((ROOT / folder).rglob("*.py"))
        if built.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["dsl/_validators.py"]


def test_a_schema_gets_one_validator_and_formats_one_of_their_own() -> None:
    schema = {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}}
    plain, checked = validator_for(schema), validator_for(schema, formats=True)
    assert validator_for(schema) is plain and validator_for(schema, formats=True) is checked
    assert plain.is_valid({"url": "not a url"})
    assert not checked.is_valid({"url": "not a url"})
    assert validator_for(dict(schema)) is not plain  # an equal schema is another schema


def test_failures_are_jsonschemas_errors_of_an_invalid_instance_only() -> None:
    schema = {"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}
    assert schema_failures(schema, {"a": 1}) == []
    failures = schema_failures(schema, {"a": "x", "b": 2})
    assert [(list(f.absolute_path), f.validator) for f in failures] == [(["a"], "type")]
    assert len(schema_failures({"items": {"type": "integer"}}, ["x"] * 5, 2)) == 2
