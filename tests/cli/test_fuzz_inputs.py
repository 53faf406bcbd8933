"""Fuzzing `dsl run`'s input parsing (#28): whatever --input pairs or --inputs file come in,
parse_inputs answers a JSON-ready map of valid Unicode, or a TaskplateError with a code and a
hint; nothing else escapes. Bounded and seeded in `make test`, longer in `make fuzz`."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.cli.commands.run import parse_inputs
from taskplate.contract import ErrorCode, TaskplateError
from tests.fuzzing import fuzz_settings

PIECES = [
    "[", "]", "{", "}", '"', ",", ":", "1", "-", "e", "9" * 50, "null", "true", "\\", "\\u",
    "\\ud800", "\\udc00", "\ud800", "\udcff", "\x00", "é", "=", " ", "\n",
]  # fmt: skip
raw_values = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(PIECES), max_size=30).map("".join),
    st.sampled_from([1, 4300, 4301, 6000]).map(lambda n: "9" * n),
    st.sampled_from([1, 99, 100, 101, 3000]).map(lambda n: "[" * n + "]" * (n // 2)),
    st.recursive(
        st.one_of(st.none(), st.integers(), st.text(max_size=8)),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
        max_leaves=10,
    ).map(json.dumps),
)
pairs = st.lists(
    st.tuples(st.text(max_size=8), st.sampled_from(["=", "", "=="]), raw_values).map("".join),
    max_size=4,
)
file_contents = st.one_of(
    st.binary(max_size=200),
    raw_values.map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.sampled_from([99, 100, 101, 3000, 100_000]).map(
        lambda n: b'{"a": ' + b"[" * n + b"]" * n + b"}"
    ),
)


def _valid_unicode(value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False)
    text.encode("utf-8")  # no lone surrogate anywhere: the store and the wire can take it


def parsed(given_pairs: tuple[str, ...], inputs_file: str | None) -> None:
    try:
        inputs = parse_inputs(given_pairs, inputs_file)
    except TaskplateError as error:
        assert error.code is ErrorCode.INVALID_PARAMETER and error.message and error.recover_hint
        return
    assert isinstance(inputs, dict)
    _valid_unicode(inputs)


@pytest.mark.fuzz
@fuzz_settings(100)
@given(pairs)
def test_any_input_pairs_are_read_or_refused_with_a_code(given_pairs: list[str]) -> None:
    parsed(tuple(given_pairs), None)


@pytest.mark.fuzz
@fuzz_settings(50)
@given(file_contents)
def test_any_inputs_file_is_read_or_refused_with_a_code(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:  # each example its own file
        given_file = Path(folder) / "inputs.json"
        given_file.write_bytes(content)
        parsed((), str(given_file))
