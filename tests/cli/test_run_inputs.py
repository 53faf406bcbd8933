"""`dsl run` reads its inputs and options before anything starts: bad ones are one line with
a code and exit 1 (docs/runs.md), never a traceback, and no run, browser or file is left (#28)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplate.cli.main import cli

TEMPLATE = Path(__file__).parents[2] / "templates" / "batch_extract_pages.yaml"


def dsl_run(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["run", str(TEMPLATE), "--json", *args], env={"TASKPLATE_HOME": str(home)}
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def refused(home: Path, *args: str) -> str:
    code, err = dsl_run(home, *args)
    assert code == 1, err
    assert err.startswith("error: ") and "[INVALID_PARAMETER]" in err and "hint: " in err, err
    assert "Traceback" not in err
    assert not home.exists() or not any(home.iterdir()), "nothing may be stored or started"
    return err


@pytest.mark.parametrize(
    "value",
    [
        "9" * 4301,
        "[" * 3000,
        "[" * 3000 + "]" * 3000,
        '{"a": ' * 200 + "1" + "}" * 200,
        "caf\udce9",  # a byte that is not UTF-8 on the command line (surrogateescape)
        '"\\ud800"',  # a JSON escape of a lone surrogate
        '{"\\udfff": 1}',
    ],
    ids=[
        "4301 digits",
        "3000 [",
        "3000 nested lists",
        "200 nested maps",
        "argv byte",
        "escape",
        "key",
    ],
)
def test_an_input_that_cannot_be_read_is_refused_with_a_code(tmp_path: Path, value: str) -> None:
    err = refused(tmp_path / "home", "--input", f"urls={value}")
    assert "--input urls" in err


def test_an_input_key_that_is_not_unicode_is_refused(tmp_path: Path) -> None:
    refused(tmp_path / "home", "--input", "ur\udcffls=1")


@pytest.mark.parametrize(
    "content",
    [
        b'{"urls": ["caf\xe9"]}',  # Latin-1, not UTF-8
        b'{"urls": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b'{"urls": ' + b"[" * 100_000,
        b'{"n": ' + b"9" * 5000 + b"}",
        b'{"urls": ["\\ud800"]}',
        b"[1, 2]",
        b"not json",
    ],
    ids=["latin-1", "100000 levels", "100000 open", "5000 digits", "surrogate", "a list", "text"],
)
def test_an_inputs_file_that_cannot_be_read_is_refused_with_a_code(
    tmp_path: Path, content: bytes
) -> None:
    given = tmp_path / "inputs.json"
    given.write_bytes(content)
    err = refused(tmp_path / "home", "--inputs", str(given))
    assert str(given) in err


@pytest.mark.parametrize("timeout", ["-5", "0", "900001", str(2**63)])
def test_a_timeout_outside_1_to_900000_ms_is_refused_up_front(tmp_path: Path, timeout: str) -> None:
    err = refused(tmp_path / "home", "--input", 'urls=["https://a.test/"]', "--timeout", timeout)
    assert "timeoutMs must be a whole number of ms from 1 to 900000" in err


def test_good_inputs_still_read_as_json_or_plain_text() -> None:
    from taskplate.cli.commands.run import parse_inputs

    assert parse_inputs(("n=5", "t=plain words", "u=[1]", "u=2"), None) == {
        "n": 5,
        "t": "plain words",
        "u": [1, 2],
    }
    deep = json.dumps({"a": [[[[{"b": 1}]]]]})
    assert parse_inputs((f"d={deep}",), None) == {"d": json.loads(deep)}
