"""The one bound on how deep a value nests (contract/_depth.py): measured without recursion, cut
with a marker where a value passes it, and a JSON text's depth read without parsing it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.contract import MAX_VALUE_DEPTH, capped, json_depth, value_depth
from taskplate.contract._depth import DEEPER
from tests.fuzzing import fuzz_settings


def nested(levels: int, leaf: Any = 1) -> Any:
    value = leaf
    for level in range(levels):
        value = [value] if level % 2 else {"k": value}
    return value


def test_depth_counts_lists_and_objects_and_stops_at_its_bound() -> None:
    assert value_depth(1) == 0 and value_depth([]) == 1 and value_depth({"a": [1]}) == 2
    assert value_depth(nested(50_000)) == MAX_VALUE_DEPTH + 1  # no RecursionError: it stops


def test_a_value_within_the_bound_is_kept_as_it_is_and_a_deeper_one_is_cut_with_a_marker() -> None:
    within = nested(MAX_VALUE_DEPTH)
    assert capped(within) is within
    cut = capped({"ok": 1, "deep": nested(600)})
    assert value_depth(cut) == MAX_VALUE_DEPTH and cut["ok"] == 1
    assert DEEPER in json.dumps(cut)
    json.dumps(capped(nested(50_000)))  # serializable, no RecursionError


def test_a_json_texts_depth_skips_brackets_in_strings() -> None:
    assert json_depth('{"a": "[[[[", "b": [[1]]}') == 3
    assert json_depth(r'["\"[[", ["x"]]') == 2
    assert json_depth("[" * 5000) == 5000


JSON = st.recursive(
    st.none() | st.integers() | st.text(alphabet='[]{}"\\ab', max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=20,
)


@pytest.mark.fuzz
@fuzz_settings(200)
@given(JSON, st.integers(0, 300))
def test_any_value_wrapped_to_any_depth_is_measured_alike_as_text_and_cut_within_the_bound(
    value: Any, levels: int
) -> None:
    deep = nested(levels, value)
    text = json.dumps(deep)
    assert json_depth(text) == value_depth(deep, stop=10**6)
    cut = capped(deep)
    assert value_depth(cut) <= MAX_VALUE_DEPTH
    assert json.loads(json.dumps(cut)) == cut
    if value_depth(deep) <= MAX_VALUE_DEPTH:
        assert cut == deep
