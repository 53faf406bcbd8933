"""A case file is read as hostile input (#40 item 5): the template and the recordings it names
stay in its folder (an absolute path, a `..`, a symlink out refused with the field's line), it
is read only when a regular file within its bound, and whatever YAML it holds is read or refused
with a code, the file and the line, never a traceback. Fuzzed: bounded and seeded in `make
test`, longer in `make fuzz`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import MAX_CASE_FILE_BYTES, load_cases
from tests.fuzzing import fuzz_settings

CASES = """\
template: {template}
cases:
  - name: two
    recording: {recording}
    expect: {{status: succeeded}}
"""


def case_file(folder: Path, template: str = "items.yaml", recording: str = "r/two.har") -> Path:
    (folder / "items.yaml").write_text("template: items\n", encoding="utf-8")
    file = folder / "items.test.yaml"
    file.write_text(CASES.format(template=template, recording=recording), encoding="utf-8")
    return file


def refused(file: Path) -> str:
    with pytest.raises(TaskplateError) as caught:
        load_cases(file)
    assert caught.value.code is ErrorCode.INVALID_PARAMETER and caught.value.recover_hint
    assert "\n" not in caught.value.message
    return caught.value.message


def test_a_recording_in_the_folder_or_below_is_read_from_there(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "in.har").touch()
    (tmp_path / "r" / "link.har").symlink_to(tmp_path / "in.har")  # a symlink that stays in
    for named, found in [("r/two.har", "r/two.har"), ("./r/link.har", "in.har")]:
        case = load_cases(case_file(tmp_path, recording=named))[0]
        assert case.recording == (tmp_path / found).resolve()
        assert case.template == (tmp_path / "items.yaml").resolve()


@pytest.mark.parametrize("given", ["/etc/passwd", "/dev/zero", "../x.har", "r/../../x.har", "out"])
def test_a_recording_outside_the_case_files_folder_is_refused_at_its_line(
    tmp_path: Path, given: str
) -> None:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "out").symlink_to("/etc/passwd")
    message = refused(case_file(folder, recording=given))
    assert message == (
        f"{folder / 'items.test.yaml'}:4: cases/0/recording: {given!r} is not inside the case "
        "file's folder"
    )


def test_a_template_outside_the_case_files_folder_is_refused(tmp_path: Path) -> None:
    message = refused(case_file(tmp_path, template="/etc/passwd"))
    assert message.endswith(":1: template: '/etc/passwd' is not inside the case file's folder")


def test_a_case_file_that_is_a_device_a_pipe_or_too_large_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    assert (
        refused(Path("/dev/zero")) == "/dev/zero:1: cannot read the case file: not a regular file"
    )
    pipe = tmp_path / "pipe.test.yaml"
    os.mkfifo(pipe)
    assert refused(pipe).endswith("not a regular file")
    large = case_file(tmp_path)
    with large.open("ab") as file:
        file.truncate(MAX_CASE_FILE_BYTES + 1)
    assert refused(large).endswith(f"over the bound of {MAX_CASE_FILE_BYTES}")


PIECES = [
    "template: items.yaml\n", "cases:\n", "  - ", "name: two\n", "recording: ", "../x.har",
    "/dev/zero", "r/two.har", "\n", "expect: {status: succeeded}\n", "inputs: {a: {$env: X}}\n",
    "{", "}", "[", "]", "&a ", "*a ", "!!python/object:os.system ", "\x00", "\ud800", "é",
    "clock: 2026-01-01T00:00:00Z\n", ": ", "- ", "    ",
]  # fmt: skip
case_texts = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.sampled_from([10, 100, 1000, 5000]).map(lambda n: "cases: " + "[" * n + "]" * n),
)


@pytest.mark.fuzz
@fuzz_settings(100)
@given(case_texts)
def test_any_case_file_is_read_or_refused_with_its_file_and_line(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:  # each example its own folder
        file = case_file(Path(folder))
        file.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            cases = load_cases(file)
        except TaskplateError as error:
            assert error.code is ErrorCode.INVALID_PARAMETER and error.recover_hint
            assert error.message.startswith(f"{file}:") and isinstance(error.details["line"], int)
            return
        for case in cases:
            assert case.recording.is_relative_to(Path(folder).resolve())
