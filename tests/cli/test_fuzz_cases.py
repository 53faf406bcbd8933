"""Fuzzing `dsl test`'s case files and recordings (#40 item 5): whatever a case file or its
recording holds, `dsl test` answers the case as one that cannot run, with its reason on one line
("…: not a HAR recording: …" for a recording) and exit 2, never a traceback, and leaves no
temporary file. Driven in process; one real `dsl test` shows the exit status and the line.
Bounded and seeded in `make test`, longer in `make fuzz`."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given

from taskplate.cli.main import cli
from tests.browser.test_har import malformed_hars, raw_texts
from tests.cli.test_record_and_test import ITEMS, dsl
from tests.dsl.test_cases import case_texts
from tests.fuzzing import fuzz_settings

CASES = """\
template: items.yaml
cases:
  - name: two
    recording: items.recordings/two.har
    expect: {status: succeeded}
"""
BAD = {"log": {"entries": [{"request": 5, "response": {"status": 200, "headers": []}}]}}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A template and its case file, with a temporary folder of their own (empty again after
    each `dsl test`)."""
    (tmp_path / "items.yaml").write_text(ITEMS, encoding="utf-8")
    (tmp_path / "items.test.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "items.recordings").mkdir()
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setenv("TASKPLATE_HOME", str(tmp_path / "home"))
    yield tmp_path


def could_not_run(folder: Path) -> list[str]:
    """`dsl test` of the folder's case file, in process: exit 2, each case's reason it cannot
    run on one line (its file's, if the file cannot be read); nothing left in the temporary
    folder."""
    result = CliRunner().invoke(cli, ["test", str(folder / "items.test.yaml")])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    *told, summary = result.stdout.splitlines()
    assert summary.endswith(f"0 passed, 0 failed, {len(told) // 2} could not run"), summary
    assert all(line.startswith("ERR ") for line in told[::2]), told
    assert all(line.startswith("     could not run: INVALID_PARAMETER: ") for line in told[1::2])
    assert not any((folder / "tmp").iterdir()), "a temporary file is left"
    return told[1::2]


SETTINGS = {"suppress_health_check": list(HealthCheck)}  # `folder` is written anew each time


@pytest.mark.fuzz
@fuzz_settings(40, **SETTINGS)
@given(text=malformed_hars() | raw_texts)
def test_any_broken_recording_is_a_case_that_cannot_run(folder: Path, text: bytes) -> None:
    recording = folder / "items.recordings" / "two.har"
    recording.write_bytes(text)
    try:  # broken even where the change left a HAR
        har = json.loads(text)
        har["log"]["entries"] = [*har["log"]["entries"], *BAD["log"]["entries"]]
        recording.write_text(json.dumps(har), encoding="utf-8")
    except (ValueError, TypeError, KeyError, RecursionError):
        pass
    assert ": not a HAR recording: " in could_not_run(folder)[0]


@pytest.mark.fuzz
@fuzz_settings(60, **SETTINGS)
@given(text=case_texts)
def test_any_broken_case_file_is_one_that_cannot_run(folder: Path, text: str) -> None:
    """Its recordings are never there: a case file that reads has cases that cannot run."""
    (folder / "items.test.yaml").write_bytes(text.encode("utf-8", "surrogatepass"))
    assert could_not_run(folder)


def test_dsl_test_of_a_malformed_recording_exits_2_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "items.yaml").write_text(ITEMS, encoding="utf-8")
    (tmp_path / "items.test.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "items.recordings").mkdir()
    (tmp_path / "items.recordings" / "two.har").write_text(json.dumps(BAD), encoding="utf-8")
    done = dsl(tmp_path, "test")  # no process of it is left: dsl() checks
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    har = (tmp_path / "items.recordings" / "two.har").resolve()
    assert done.stdout.splitlines()[1] == (
        f"     could not run: INVALID_PARAMETER: {har}: not a HAR recording: "
        "log/entries/0/request: an object expected"
    )
    assert not any((tmp_path / "tmp").iterdir()), "a temporary file is left"
