"""Generated extract field specs, nested to any depth: the checker accepts every well-formed
one and types its records, refuses `attr`/`type` beside `fields` naming the field, and what
the action makes of any page's reading fits the result type the checker declared."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from taskplate.dsl import check_source
from taskplate.stdlib import REGISTRY
from taskplate.stdlib.reading._extract_fields import shaped
from taskplate.stdlib.reading.extract import KEY, _typed_field, result_schema_for
from tests.fuzzing import fuzz_settings

NAMES = st.sampled_from(["title", "price", "link", "tags", "seller", "x_1"])
SELECTORS = st.sampled_from([".t", ".p", "a.more", "li", ".card > span"])
TYPES = st.sampled_from(["string", "number", "integer", "boolean", "url"])
LEAF = st.one_of(
    SELECTORS,
    st.fixed_dictionaries(
        {"selector": SELECTORS},
        optional={"attr": st.just("href"), "all": st.booleans(), "type": TYPES},
    ),
)


def _record(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"selector": SELECTORS, "fields": st.dictionaries(NAMES, children, min_size=1, max_size=3)},
        optional={"all": st.booleans()},
    )


FIELD = st.recursive(LEAF, _record, max_leaves=10)
FIELDS = st.dictionaries(NAMES, FIELD, min_size=1, max_size=3)


def template(fields: dict[str, Any], output: str = "${{ steps.cards.values }}") -> str:
    return (
        "template: records\nversion: 1.0.0\nsteps:\n  - id: cards\n    action: extract\n"
        f'    with: {{fields: {json.dumps(fields)}}}\noutput:\n  out: "{output}"\n'
    )


def _deepest(fields: dict[str, Any], path: str = "steps.cards.values") -> tuple[str, Any]:
    """A path to a leaf through the records (the first item of each list) and its field."""
    name, field = next(iter(fields.items()))
    path = f"{path}.{name}"
    if isinstance(field, dict) and "fields" in field:
        return _deepest(field["fields"], path + ("[0]" if field.get("all") else ""))
    return path + ("[0]" if isinstance(field, dict) and field.get("all") else ""), field


@given(FIELDS)
@fuzz_settings(150)
def test_every_well_formed_spec_is_accepted_and_its_leaves_typed(fields: dict[str, Any]) -> None:
    path, leaf = _deepest(fields)
    kind = leaf.get("type", "string") if isinstance(leaf, dict) else "string"
    numeric = kind in ("number", "integer")
    # A leaf read as a number adds to a number; any other kind does not.
    found = check_source(template(fields, f"${{{{ {path} * 2 }}}}"), "r.yaml", REGISTRY)
    messages = [d.message for d in found.diagnostics]
    assert (messages == []) == numeric, (path, messages)
    assert all("needs numbers" in m for m in messages), messages


@given(FIELDS, st.sampled_from([{"attr": "href"}, {"type": "number"}]))
@fuzz_settings(100)
def test_attr_or_type_beside_fields_is_refused_naming_the_field(
    fields: dict[str, Any], extra: dict[str, str]
) -> None:
    name = next(iter(fields))
    fields = {**fields, name: {"selector": ".card", "fields": {"t": ".t"}, **extra}}
    found = check_source(template(fields), "r.yaml", REGISTRY)
    assert [d.message for d in found.diagnostics if d.rule == "action-args"] == [
        f'"{name}" reads a record (fields): attr and type belong to the fields inside it'
    ]


def _read(field: dict[str, Any]) -> st.SearchStrategy[Any]:
    """What the page script may answer for a field: text or null per match, records as maps
    keyed by the prefixed field names the script is given."""
    if "fields" in field:
        one: st.SearchStrategy[Any] = st.fixed_dictionaries(
            {KEY + n: _read(f) for n, f in field["fields"].items()}
        )
    elif field.get("type") == "boolean":
        one = st.booleans()
    else:
        one = st.one_of(st.none(), st.sampled_from(["$1,299.00", "12", "n/a", "/x", "2.5"]))
    if field.get("all"):
        return st.lists(one, max_size=3)
    return one if field.get("type") == "boolean" and "fields" not in field else st.none() | one


@given(FIELDS.flatmap(lambda f: st.tuples(st.just(f), *(_read(g) for g in shaped(f).values()))))
@fuzz_settings(150)
def test_what_extract_makes_of_a_reading_fits_the_declared_result(drawn: tuple[Any, ...]) -> None:
    fields, *reads = drawn
    specs = shaped(fields)
    values = {n: _typed_field(r, f) for (n, f), r in zip(specs.items(), reads, strict=True)}
    declared = result_schema_for({"fields": fields})["properties"]["values"]
    jsonschema.validate(values, declared)
