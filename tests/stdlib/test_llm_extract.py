"""llm_extract's pure parts: reading JSON out of an answer, masking secrets, typing `data`.
The action itself is tested through the protocol in tests/server/test_llm_extract.py."""

from __future__ import annotations

import json

import pytest

from taskplate.stdlib._sampling import masked
from taskplate.stdlib.reading.llm_extract import RESULT, parsed, result_schema_for


def test_an_answer_is_read_whole_or_from_its_first_json_fence() -> None:
    assert parsed('  {"a": 1}\n') == {"a": 1}
    assert parsed('```json\n{"a": 1}\n```') == {"a": 1}
    assert parsed("Sure! Here:\n```\n[1, 2]\n```\nAnything else?") == [1, 2]
    with pytest.raises(json.JSONDecodeError):
        parsed("The price is 12 euros.")


def test_secrets_are_masked_longest_first_and_empty_ones_ignored() -> None:
    text = "user ada, password hunter2, hunter2-extra"
    assert masked(text, ["hunter2", "hunter2-extra", ""]) == "user ada, password ***, ***"
    assert masked("nothing here", []) == "nothing here"


def test_data_is_typed_by_a_written_out_schema_only() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert result_schema_for({"schema": schema})["properties"]["data"] == schema
    assert result_schema_for({"schema": object()}) is RESULT
