"""A provider's tool calls in a test case, with the reference filesystem server: `dsl record`
keeps each call with its answer (or its error and code), the secret masked; `dsl test` answers
them from the recording and never starts the provider (its start leaves a mark), even with no
provider configured; `--live` calls it; a call the recording lacks fails saying to record
again. The template is disabled by its folder's configuration all along: a case tests it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import TemplateLibrary
from taskplate.stdlib import REGISTRY
from tests.cli.test_record_and_test import dsl
from tests.providers.conftest import FILESYSTEM, toml_list

TEMPLATES = Path(__file__).parents[2] / "templates"
SECRET = "s3cr3t-value"
NOTE = """\
template: write_note
version: 1.0.0
name: Write a note
description: Write a note through the notes provider.
trust: [local]
inputs:
  type: object
  additionalProperties: false
  required: [file, text, token]
  properties:
    file: {type: string}
    text: {type: string}
    token: {type: string, format: password}
steps:
  - id: write
    action: mcp.notes.write_file
    with: {path: "${{ inputs.file }}", content: "${{ inputs.text }} (${{ inputs.token }})"}
output:
  written: ${{ steps.write.content }}
"""


def notes_folder(folder: Path) -> Path:
    """write_note.yaml, switched off by its taskplate.toml, whose provider `notes` is the
    filesystem server started through a script that marks each start in `starts`; the lock
    beside it lists the server's tools (the shipped lock's, under the name `notes`)."""
    folder.mkdir()
    (folder / "allowed").mkdir()
    (folder / "write_note.yaml").write_text(NOTE, encoding="utf-8")
    starter = folder / "start.sh"
    starter.write_text(f'#!/bin/sh\necho started >> {folder / "starts"}\nexec {FILESYSTEM} "$@"\n')
    starter.chmod(0o755)
    (folder / "taskplate.toml").write_text(
        f"[providers.notes]\ncommand = {toml_list([str(starter), str(folder / 'allowed')])}\n"
        '[templates]\ndisabled = ["write_note"]\n',
        encoding="utf-8",
    )
    lock = json.loads((TEMPLATES / "providers.lock.json").read_text(encoding="utf-8"))
    lock["providers"] = {"notes": lock["providers"]["files"]}
    (folder / "providers.lock.json").write_text(json.dumps(lock), encoding="utf-8")
    return folder


def starts(folder: Path) -> int:
    marks = folder / "starts"
    return len(marks.read_text().splitlines()) if marks.exists() else 0


def record(folder: Path, file: str, name: str) -> None:
    inputs = ["--input", f"file={file}", "--input", "text=hello", "--input", f"token={SECRET}"]
    done = dsl(folder, "record", "write_note.yaml", *inputs, "--name", name)
    assert done.returncode == 0, done.stderr


def calls(folder: Path, name: str) -> list[dict[str, Any]]:
    har = json.loads((folder / "write_note.recordings" / f"{name}.har").read_text())
    kept: list[dict[str, Any]] = har["log"]["_taskplate"]["calls"]
    return kept


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder with the case `note` recorded: one call answered."""
    folder = notes_folder(tmp_path_factory.mktemp("notes") / "notes")
    record(folder, "note.md", "note")
    yield folder


@pytest.fixture
def cases(recorded: Path, tmp_path: Path) -> Path:
    """A copy of the recorded folder for one test to change, no start marked yet."""
    folder = tmp_path / "cases"
    shutil.copytree(recorded, folder, ignore=shutil.ignore_patterns("home", "tmp", "starts"))
    for script in (folder / "start.sh", folder / "taskplate.toml"):  # they name their folder
        script.write_text(script.read_text().replace(str(recorded), str(folder)))
    return folder


def test_a_call_is_recorded_with_its_answer_and_the_secret_masked(recorded: Path) -> None:
    assert starts(recorded) == 1  # recorded live, although the template is switched off
    assert (recorded / "allowed" / "note.md").read_text() == f"hello ({SECRET})"
    assert calls(recorded, "note") == [
        {
            "action": "mcp.notes.write_file",
            "arguments": {"path": "note.md", "content": "hello (__taskplate_secret__)"},
            "answer": {"content": "Successfully wrote to note.md"},
        }
    ]
    for path in [*recorded.glob("*.test.yaml"), *recorded.rglob("*.har")]:
        assert SECRET not in path.read_text(encoding="utf-8"), path


def test_offline_the_answer_comes_from_the_recording_and_no_provider_starts(cases: Path) -> None:
    (cases / "allowed" / "note.md").unlink()
    replayed = dsl(cases, "test", "--format", "json")  # no secret, and no process left (dsl())
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert json.loads(replayed.stdout)["passed"] == 1
    (cases / "taskplate.toml").unlink()  # no provider configured: the lock beside it serves
    unconfigured = dsl(cases, "test")
    assert unconfigured.returncode == 0, unconfigured.stdout + unconfigured.stderr
    assert starts(cases) == 0
    assert not (cases / "allowed" / "note.md").exists()


def test_live_calls_the_provider(cases: Path) -> None:
    live = dsl(cases, "test", "--live", env={"TASKPLATE_SECRET_TOKEN": "another"})
    assert live.returncode == 0, live.stdout + live.stderr
    assert starts(cases) == 1
    assert (cases / "allowed" / "note.md").read_text() == "hello (another)"


def test_a_call_the_recording_lacks_fails_saying_to_record_again(cases: Path) -> None:
    case = cases / "write_note.test.yaml"
    case.write_text(case.read_text().replace("text: hello", "text: bye"))
    done = dsl(cases, "test")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "expected succeeded, got failed" in done.stdout
    assert "the recording holds no answer for this call of mcp.notes.write_file" in done.stdout
    assert starts(cases) == 0


def test_an_error_is_recorded_with_its_code_and_replayed(cases: Path) -> None:
    outside = str(cases / "outside.md")
    record(cases, outside, "outside")  # the run fails, as the case then expects
    [call] = calls(cases, "outside")
    assert call["error"]["errorCode"] == "PROVIDER_ERROR"
    assert "Access denied" in call["error"]["error"] and "answer" not in call
    assert not (cases / "outside.md").exists()
    marked = starts(cases)
    replayed = dsl(cases, "test", "write_note/outside")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    case = cases / "write_note.test.yaml"  # expecting success shows the replayed error
    case.write_text(case.read_text().replace("status: failed", "status: succeeded"))
    broken = dsl(cases, "test", "write_note/outside")
    assert broken.returncode == 1
    assert "expected succeeded, got failed" in broken.stdout
    assert "Access denied" in broken.stdout
    assert starts(cases) == marked


def test_a_case_serves_its_template_whatever_the_switches_say(recorded: Path) -> None:
    library = TemplateLibrary(REGISTRY).load([recorded])
    assert "write_note" not in [t.id for t in library.all()]
    with pytest.raises(TaskplateError) as refused:
        library.get("write_note")
    assert refused.value.code is ErrorCode.TEMPLATE_DISABLED
    template = library.add_case_file(recorded / "write_note.yaml")
    assert template is not None and library.get("write_note") is template
    assert library.needs(template) == ("L2", ["notes"])
