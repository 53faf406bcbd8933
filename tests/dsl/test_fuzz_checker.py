"""Fuzzing check_source (#28): the shipped templates and the docs' YAML examples, mutated as
text and as data, and random expressions put in a template. Whatever comes in, the checker
answers with diagnostics, each with a rule (its code) and a position in the file; nothing
escapes. Bounded and seeded in `make test`, longer and random in `make fuzz`."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from taskplate.dsl import CheckResult, check_source
from taskplate.stdlib import REGISTRY
from tests.dsl.test_rules import RULES
from tests.fuzzing import fuzz_settings

ROOT = Path(__file__).parents[2]
TEMPLATES = {
    p.name: p.read_text(encoding="utf-8")
    for p in sorted((ROOT / "templates").glob("*.yaml"))
    if not p.name.endswith(".test.yaml")  # the shipped templates' test cases
}
DOC_EXAMPLES = {
    f"{doc.name}#{i}": block
    for doc in sorted((ROOT / "docs").glob("*.md"))
    for i, block in enumerate(
        re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    )
}
SOURCES = {**TEMPLATES, **DOC_EXAMPLES}
KNOWN_RULES = RULES  # every rule of dsl/rules/, provider-lock included
CPU_BOUND_S = 2.0

# Values that broke or could break the checker: wrong types where schemas, lists, numbers or
# expressions are expected, deep or huge ones, and text no store can keep.
ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    2**63,
    10**400,
    float("inf"),
    "",
    "x",
    "\ud800",
    "a\x00b",
    "${{ 1 }}",
    "${{",
    "}}",
    "${{ steps }}",
    "${{ inputs.urls[0] }}",
    "${{ (((((((1))))))) }}",
    "${{ map(inputs.urls, u, u) }}",
    [],
    [[]],
    [["a"]],
    [1.5],
    [{}],
    ["${{ 1 }}"],
    {},
    {"type": [1.5]},
    {"type": [{}]},
    {"required": [["a"]]},
    {"$ref": "#/nowhere"},
    {"properties": {"a": {"type": "object", "required": [[1]]}}},
    {"a": {"b": {"c": {"d": {"e": [1, [2, [3, [4]]]]}}}}},
    ["a"] * 50,
]
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False),
        st.text(max_size=20),
        st.sampled_from(ODD_VALUES),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
EXPRESSION_TOKENS = [
    "inputs", "steps", "item", "index", "run", ".", "[", "]", "(", ")", "{", "}", ",", ":",
    "?", "!", "-", "+", "*", "/", "%", "==", "!=", "<", ">=", "&&", "||", "in", "null",
    "true", "0", "1", "2.5", "'a'", '"b"', "length", "join", "map", "filter", "sortBy",
    "fromJson", "x", "'}}'", "${{", "urls", "items", "9" * 30,
]  # fmt: skip
expressions = st.one_of(
    st.lists(st.sampled_from(EXPRESSION_TOKENS), min_size=1, max_size=30).map(" ".join),
    st.text(max_size=40),
)


def checked(text: str) -> CheckResult:
    """The invariants of every check: no exception, every diagnostic a known rule with a place
    in the file and a message, and a bounded cost."""
    started = time.process_time()
    result = check_source(text, "fuzzed.yaml", REGISTRY)
    assert time.process_time() - started < CPU_BOUND_S
    # libyaml counts lines as YAML 1.1 does: \x85, \u2028 and \u2029 break lines too (as
    # they do for splitlines), so a line may be one an editor shows as part of another.
    lines = len(text.splitlines()) + 2
    for d in result.diagnostics:
        assert d.rule in KNOWN_RULES, d
        assert d.message and d.severity in ("error", "warning"), d
        assert 1 <= d.span.line <= d.span.end_line <= lines, d
        d.header()  # renders
        json.dumps(d.to_json())
    return result


def _paths(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*path, index))
    return found


def _replaced(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {k: (_replaced(v, rest, value) if k == head else v) for k, v in data.items()}
    return [(_replaced(v, rest, value) if i == head else v) for i, v in enumerate(data)]


@st.composite
def data_mutations(draw: st.DrawFn) -> str:
    """A shipped template or docs example with some of its values replaced, as YAML or JSON."""
    name = draw(st.sampled_from(sorted(SOURCES)))
    try:
        data = yaml.safe_load(SOURCES[name])
    except yaml.YAMLError:
        data = None
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(_paths(data)))
        data = _replaced(data, path, draw(json_values))
    if draw(st.booleans()):
        return json.dumps(data, indent=1, default=str)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10_000)


@st.composite
def text_mutations(draw: st.DrawFn) -> str:
    """A shipped template or docs example with characters cut, inserted or lines moved."""
    text = SOURCES[draw(st.sampled_from(sorted(SOURCES)))]
    for _ in range(draw(st.integers(1, 5))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["cut", "insert", "line", "indent"]))
        if kind == "cut":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif kind == "insert":
            piece = draw(
                st.one_of(
                    st.sampled_from(
                        ["${{", "}}", ":", "- ", "\n", "\t", "[", "{", "&a ", "*a", "!!str ", "#"]
                    ),
                    st.text(max_size=8),
                )
            )
            text = text[:at] + piece + text[at:]
        else:
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            if kind == "line":
                lines.insert(draw(st.integers(0, len(lines))), lines[i])
            else:
                lines[i] = " " * draw(st.integers(0, 6)) + lines[i].lstrip()
            text = "\n".join(lines)
    return text


def test_the_fuzzed_sources_check_as_they_are() -> None:
    assert len(TEMPLATES) >= 7 and len(DOC_EXAMPLES) > 10
    for text in TEMPLATES.values():  # some call providers: their lock file is not loaded here
        assert checked(text).template is not None
    for text in DOC_EXAMPLES.values():
        checked(text)


@pytest.mark.fuzz
@fuzz_settings(100)
@given(data_mutations())
def test_templates_with_values_replaced_are_checked_cleanly(text: str) -> None:
    checked(text)


@pytest.mark.fuzz
@fuzz_settings(100)
@given(text_mutations())
def test_templates_with_text_cut_and_inserted_are_checked_cleanly(text: str) -> None:
    checked(text)


@pytest.mark.fuzz
@fuzz_settings(100)
@given(expressions, st.sampled_from(["with: {ms: V}", "when: V", "forEach: V", "output: V"]))
def test_random_expressions_in_a_template_are_checked_cleanly(expression: str, place: str) -> None:
    value = json.dumps("${{ " + expression + " }}")
    step = "{action: wait, with: {ms: 1}}"
    if place == "with: {ms: V}":
        step = "{action: wait, with: {ms: V}}".replace("V", value)
    elif place == "when: V":
        step = "{action: wait, when: V, with: {ms: 1}}".replace("V", value)
    elif place == "forEach: V":
        step = "{id: l, forEach: V, steps: [{action: wait, with: {ms: 1}}]}".replace("V", value)
    text = f"template: t\nversion: 1.0.0\nsteps:\n  - {step}\n"
    if place == "output: V":
        text += f"output: {{x: {value}}}\n"
    checked(text)
