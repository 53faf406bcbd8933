"""A recording is read as hostile input (#40 item 5): a regular file within its size bound,
UTF-8 JSON not too deep, of the types every reader of it takes; anything else is one line
"…: not a HAR recording: <where>: <what>" with a code, never a traceback, and a recording that
is accepted is one every reader (the browser's replay, plain HTTP's, the model's and the
providers' answers) can use. Fuzzed: bounded and seeded in `make test`, longer in `make fuzz`."""

from __future__ import annotations

import copy
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.browser import MAX_RECORDING_BYTES, HarReplay, read_har, response_body
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import ReplaySampler, ReplayTools
from taskplate.stdlib import HttpReplay
from tests.fuzzing import fuzz_settings

ROOT = Path(__file__).parents[2]
VALID: dict[str, Any] = {
    "log": {
        "version": "1.2",
        "entries": [
            {
                "startedDateTime": "2026-01-01T00:00:00Z",
                "request": {
                    "method": "POST",
                    "url": "http://127.0.0.1/form",
                    "headers": [{"name": "Accept", "value": "*/*"}],
                    "postData": {"text": "a=1"},
                },
                "response": {
                    "status": 200,
                    "headers": [{"name": "Set-Cookie", "value": "a=1"}],
                    "content": {"text": "aGk=", "encoding": "base64"},
                    "redirectURL": "",
                },
                "_taskplate": "http",
            }
        ],
        "_taskplate": {
            "template": "items.yaml",
            "case": "two",
            "answers": [{"system": "s", "messages": [], "answer": "a"}],
            "calls": [{"action": "files.write", "arguments": {}, "error": {"errorCode": "X"}}],
        },
    }
}


def refused(path: Path) -> str:
    """The one-line message reading `path` is refused with."""
    with pytest.raises(TaskplateError) as caught:
        read_har(path)
    assert caught.value.code is ErrorCode.INVALID_PARAMETER and caught.value.recover_hint
    assert "\n" not in caught.value.message
    return caught.value.message


def written(folder: Path, data: Any) -> Path:
    path = folder / "case.har"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def changed(where: list[Any], value: Any) -> dict[str, Any]:
    har = copy.deepcopy(VALID)
    node: Any = har
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return har


def test_every_shipped_recording_is_read() -> None:
    found = sorted((ROOT / "templates").glob("*.recordings/*.har"))
    assert found
    for path in found:
        assert read_har(path)["log"]["entries"]


@pytest.mark.parametrize(
    ("where", "value", "said"),
    [
        (["log", "entries", 0, "request"], 5, "log/entries/0/request: an object expected"),
        (["log", "entries"], {}, "log/entries: an array expected"),
        (["log"], [], "log: an object expected"),
        (["log", "entries", 0, "response", "status"], "200", "status: a whole number expected"),
        (["log", "entries", 0, "response", "headers", 0, "value"], 1, "0/value: a string"),
        (["log", "entries", 0, "request", "postData", "text"], [], "postData/text: a string"),
        (["log", "entries", 0, "response", "content"], {"_file": "/etc/passwd"}, "(_file)"),
        (["log", "entries", 0, "response", "content", "text"], "not base64!", "not base64"),
        (["log", "_taskplate", "answers", 0], "a", "answers/0: an object expected"),
        (["log", "_taskplate", "calls", 0, "error"], "x", "calls/0/error: an object"),
        (["log", "entries", 0, "request"], {"method": "GET"}, "request: 'url' is missing"),
    ],
)
def test_a_recording_of_the_wrong_types_is_refused_with_the_place(
    tmp_path: Path, where: list[Any], value: Any, said: str
) -> None:
    message = refused(written(tmp_path, changed(where, value)))
    assert message.startswith(f"{tmp_path / 'case.har'}: not a HAR recording: ") and said in message


def test_a_recording_nested_200000_levels_deep_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.har"
    path.write_text('{"log": ' + "[" * 200_000 + "]" * 200_000 + "}", encoding="utf-8")
    assert refused(path).endswith("not a HAR recording: nested more than 256 levels deep")
    path.write_text(json.dumps(changed(["log", "deep"], json.loads("[" * 300 + "]" * 300))))
    assert refused(path).endswith("nested more than 256 levels deep")


def test_what_is_no_json_or_no_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "case.har"
    path.write_bytes(b'{"log": {"entr')
    assert "not a HAR recording: not JSON (" in refused(path)
    path.write_bytes(b'{"log": "\xff"}')
    assert refused(path).endswith("not a HAR recording: not UTF-8 text")


def test_a_device_a_pipe_or_a_file_over_the_bound_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    assert refused(Path("/dev/zero")).endswith("not a HAR recording: not a regular file")
    pipe = tmp_path / "pipe.har"
    os.mkfifo(pipe)  # opening it to read would wait for a writer: it is not opened so
    assert refused(pipe).endswith("not a regular file")
    large = tmp_path / "large.har"
    with large.open("wb") as file:
        file.truncate(MAX_RECORDING_BYTES + 1)  # sparse: no disk, and never read
    assert refused(large).endswith(f"over the bound of {MAX_RECORDING_BYTES}")
    assert refused(tmp_path / "gone.har").endswith("the recording is missing")


def usable(har: dict[str, Any]) -> None:
    """Every reader of a recording takes it as `dsl test` gives it to them."""
    log = har["log"]
    made = log.get("_taskplate", {})
    with tempfile.TemporaryDirectory() as folder:
        HarReplay(Path(folder) / "unread.har", har)
    HttpReplay(log["entries"])
    ReplaySampler(made.get("answers", []))
    ReplayTools(made.get("calls", []))
    for entry in log["entries"]:
        response_body(entry["response"])


def read_or_refused(text: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:  # each example its own file
        path = Path(folder) / "case.har"
        path.write_bytes(text)
        try:
            har = read_har(path)
        except TaskplateError as error:
            assert error.code is ErrorCode.INVALID_PARAMETER and error.recover_hint
            assert ": not a HAR recording: " in error.message or "missing" in error.message
            assert "\n" not in error.message
            return
    usable(har)


def _places(value: Any, where: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        inner = [p for key, item in value.items() for p in _places(item, (*where, key))]
    elif isinstance(value, list):
        inner = [p for index, item in enumerate(value) for p in _places(item, (*where, index))]
    else:
        inner = []
    return [where, *inner]


PLACES = _places(VALID)[1:]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)


@st.composite
def malformed_hars(draw: st.DrawFn) -> bytes:
    """The valid HAR with a few places given another value, removed, or given an extra key."""
    har: Any = copy.deepcopy(VALID)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(PLACES))
        node = har
        try:
            for key in where[:-1]:
                node = node[key]
            action = draw(st.sampled_from(["value", "remove", "extra"]))
            if action == "value":
                node[where[-1]] = draw(json_values)
            elif action == "remove":
                del node[where[-1]]
            elif isinstance(node[where[-1]], dict):
                node[where[-1]][draw(st.sampled_from(["_file", "encoding", "x"]))] = draw(
                    json_values
                )
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change took the place away
    return json.dumps(har).encode("utf-8")


PIECES = [
    "{", "}", "[", "]", '"log"', '"entries"', '"request"', '"response"', ":", ",", "5", "null",
    '"\\ud800"', "\xff", '"base64"',
]  # fmt: skip
raw_texts = st.one_of(
    st.binary(max_size=100),
    st.lists(st.sampled_from(PIECES), max_size=30).map(lambda p: "".join(p).encode()),
    st.sampled_from([100, 255, 256, 257, 5000, 200_000]).map(
        lambda n: b'{"log": {"entries": [], "x": ' + b"[" * n + b"]" * n + b"}}"
    ),
)


@pytest.mark.fuzz
@fuzz_settings(100)
@given(malformed_hars())
def test_any_changed_har_is_read_usable_or_refused_on_one_line(text: bytes) -> None:
    read_or_refused(text)


@pytest.mark.fuzz
@fuzz_settings(40)
@given(raw_texts)
def test_any_bytes_as_a_recording_are_refused_on_one_line(text: bytes) -> None:
    read_or_refused(text)
