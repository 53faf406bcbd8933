"""`dsl run`'s secret inputs stay off its command line (issue 53): `--input-file KEY=FILE`, or a
missing password asked on the terminal without echo; and a failed run says so on stderr,
`error: … [CODE]` and a hint, as docs/runs.md promises."""

from __future__ import annotations

import json
import os
import pty
import select
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from taskplate.cli.main import cli

DSL = str(Path(sys.executable).parent / "dsl")
SIGN_IN = """template: sign_in
version: 1.0.0
description: Takes a user and a password; answers what it was given (the password's length).
inputs:
  type: object
  additionalProperties: false
  required: [username, password]
  properties:
    username: {type: string}
    password: {type: string, format: password, writeOnly: true}
steps:
  - action: wait
    with: {ms: 1}
output:
  username: ${{ inputs.username }}
  length: ${{ length(inputs.password) }}
"""
FAILS = """template: fails
version: 1.0.0
description: Fails on purpose.
steps:
  - id: stop
    action: fail
    with: {message: "the shop is closed"}
"""


def _template(folder: Path, text: str) -> Path:
    name = text.split("\n", 1)[0].removeprefix("template: ")
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _run(home: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["run", *args], env={"TASKPLATE_HOME": str(home)})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_a_failed_run_says_its_error_and_code_on_stderr(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path / "home", str(_template(tmp_path, FAILS)), "--json")
    assert code == 1
    assert json.loads(out)["status"] == "failed"  # the run's JSON stays on stdout
    first, *rest = err.splitlines()
    assert first.startswith("error: ") and "the shop is closed" in first, err
    assert first.endswith("[STEP_EXECUTION_FAILED]"), err
    assert rest and rest[0].startswith("hint: "), err
    assert "Traceback" not in err


def test_an_input_is_read_from_a_file_without_its_last_newline(tmp_path: Path) -> None:
    secret = tmp_path / "password.txt"
    secret.write_text("correct horse\n", encoding="utf-8")
    template = str(_template(tmp_path, SIGN_IN))
    code, out, err = _run(
        tmp_path / "home", template, "--json", "--input", "username=ada",
        "--input-file", f"password={secret}",
    )  # fmt: skip
    assert code == 0, err
    answer = json.loads(out)
    assert answer["result"] == {"username": "ada", "length": len("correct horse")}
    assert "correct horse" not in out + err  # a secret input: masked in the run's inputs


def test_an_input_file_that_cannot_be_read_is_refused_with_a_code(tmp_path: Path) -> None:
    template = str(_template(tmp_path, SIGN_IN))
    home = tmp_path / "home"
    for given, said in [
        ("password", "is not KEY=FILE"),
        (f"password={tmp_path / 'nowhere.txt'}", "cannot read"),
        ("password=/dev/zero", "not a regular file"),
        (f"password={tmp_path}", "not a regular file"),
    ]:
        code, _out, err = _run(home, template, "--input", "username=a", "--input-file", given)
        assert code == 1, err
        assert err.startswith("error: ") and "[INVALID_PARAMETER]" in err and said in err, err
        assert "hint: " in err and "Traceback" not in err
    assert not home.exists() or not any(home.iterdir()), "nothing may be stored or started"


def test_a_missing_password_is_asked_on_the_terminal_without_echo(tmp_path: Path) -> None:
    """`dsl run` in a real pseudo-terminal: the password left out is asked for, typed, not
    echoed, and the run goes on with it."""
    template = _template(tmp_path, SIGN_IN)
    env = {**os.environ, "TASKPLATE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    pid, terminal = pty.fork()
    if pid == 0:  # the child: dsl run on the terminal
        os.execve(DSL, [DSL, "run", str(template), "--json", "--input", "username=ada"], env)
    seen = b""
    try:
        seen = _read_until(terminal, seen, b"password")
        os.write(terminal, b"s3cret-typed\n")
        seen = _read_until(terminal, seen, None)  # all it shows until it ends
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(terminal)
    text = seen.decode("utf-8", "replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "s3cret-typed" not in text  # neither echoed nor printed
    assert '"length": 12' in text and '"status": "succeeded"' in text, text


def _read_until(fd: int, seen: bytes, wanted: bytes | None, within_s: float = 60) -> bytes:
    """What the terminal showed, read until `wanted` is among it, or (None) until the program
    on it ended; within `within_s`."""
    deadline = time.monotonic() + within_s
    while wanted is None or wanted not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{wanted!r} never came: {seen.decode('utf-8', 'replace')}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the program ended (EIO): nothing more will come
                chunk = b""
            if not chunk and wanted is None:
                return seen
            assert chunk, f"{wanted!r} never came: {seen.decode('utf-8', 'replace')}"
            seen += chunk
    return seen


def test_without_a_terminal_a_missing_password_is_refused_not_asked(tmp_path: Path) -> None:
    template = str(_template(tmp_path, SIGN_IN))
    code, _out, err = _run(tmp_path / "home", template, "--json", "--input", "username=ada")
    assert code == 1 and "password" in err and "Traceback" not in err, err
    assert err.startswith("error: ") and "[INVALID_PARAMETER]" in err, err
