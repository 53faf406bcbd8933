"""`dsl validate` as a user runs it: output formats, exit codes, folders and unreadable files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplate.cli.main import cli

ROOT = Path(__file__).parents[2]
CASES = ROOT / "tests" / "dsl" / "rules"  # a folder of cases per rule


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["validate", *args])
    return result.exit_code, result.stdout, result.stderr


def test_shipped_templates_exit_0() -> None:
    code, out, err = run(str(ROOT / "templates"))
    assert code == 0, out
    assert out == ""
    assert "7 templates and 7 case files checked: 0 errors, 0 warnings" in err


def test_text_output_points_at_the_span(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(
        "template: x\nversion: 1.0.0\n"
        "inputs: {type: object, properties: {urls: {type: array}, other: {type: string}}}\n"
        "steps:\n  - forEach: ${{ inputs.urlz }}\n    steps: [{action: wait, with: {ms: 1}}]\n"
    )
    code, out, _ = run(str(path))
    assert code == 1
    lines = out.splitlines()
    # "urls" counts as used: the typo "urlz" names it, and its warning would be the typo's
    assert lines[0] == f'{path}:3:58: warning: input "other" is never used [unused-input]'
    assert (
        lines[3]
        == f'{path}:5:18: error: inputs has no property "urlz"; did you mean "urls"? [unknown-ref]'
    )
    assert lines[4] == "   5 |   - forEach: ${{ inputs.urlz }}"
    assert lines[5] == "     |                  ^~~~~~~~~~~"


def test_json_output_has_every_field() -> None:
    code, out, _ = run("--format", "json", str(CASES / "unknown-ref" / "ref_unknown_input.yaml"))
    assert code == 1
    items = json.loads(out)
    assert [i["rule"] for i in items] == ["unknown-ref"]  # no unused warning caused by the typo
    assert items[0] == {
        "file": str(CASES / "unknown-ref" / "ref_unknown_input.yaml"),
        "line": 8,
        "column": 18,
        "endLine": 8,
        "endColumn": 29,
        "severity": "error",
        "rule": "unknown-ref",
        "message": 'inputs has no property "urlz"; did you mean "urls"?',
        "pointer": "/steps/0/forEach",
    }


def test_warnings_pass_unless_strict() -> None:
    assert run(str(CASES / "unused-input" / "unused_input.yaml"))[0] == 0
    assert run("--strict", str(CASES / "unused-input" / "unused_input.yaml"))[0] == 1


def test_many_files_are_sorted_by_file_line_and_column() -> None:
    code, out, _ = run("--format", "json", str(CASES))
    assert code == 1
    items = json.loads(out)
    keys = [(i["file"], i["line"], i["column"]) for i in items]
    assert keys == sorted(keys)
    invalid = [p for p in CASES.glob("*/*.yaml") if p.with_suffix(".out").exists()]
    assert len({i["file"] for i in items}) == len(invalid)


def test_missing_path_is_an_io_error_but_the_rest_are_checked(tmp_path: Path) -> None:
    code, _out, err = run(str(ROOT / "templates"), str(tmp_path / "nope.yaml"))
    assert code == 2
    assert f"error: {tmp_path / 'nope.yaml'}: no such file or folder" in err


def test_non_utf8_file_is_an_io_error(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes("template: caf\xe9\n".encode("latin-1"))
    code, _, err = run(str(path))
    assert code == 2
    assert "not UTF-8 text" in err


def test_usage_error_exits_2() -> None:
    assert run()[0] == 2
    assert run("--format", "xml", "x")[0] == 2


def test_the_installed_command_runs_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("template: [\n")
    dsl = Path(sys.executable).parent / "dsl"
    done = subprocess.run(
        [str(dsl), "validate", str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "[yaml-syntax]" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "name",
    ["batch_extract_pages", "crawl_site", "login_keep_session", "map_site", "multi_tab_compare"],
)
def test_graph_prints_the_step_tree(name: str) -> None:
    result = CliRunner().invoke(cli, ["graph", str(ROOT / "templates" / f"{name}.yaml")])
    assert result.exit_code == 0
    assert result.stdout.startswith(f"{name} 1.0.0")
    assert "└─" in result.stdout


def test_graph_refuses_an_invalid_template() -> None:
    result = CliRunner().invoke(cli, ["graph", str(CASES / "cycle" / "cycle_two_steps.yaml")])
    assert result.exit_code == 1
    assert "[cycle]" in result.stderr


def test_checking_a_clean_template_loads_no_jsonschema_or_regex(tmp_path: Path) -> None:
    """Cold start: jsonschema is imported only to explain a problem; lark, which reads the
    expressions, without the `regex` module it would load for Unicode categories; and once the
    expressions were parsed (dsl/expr/_saved.py keeps their trees), not lark either."""
    code = (
        "import sys; from taskplate.cli.commands.validate import check_paths; "
        f"results, _ = check_paths(({str(ROOT / 'templates')!r},)); "
        "assert all(r.ok for r in results); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'jsonschema', 'lark', 'regex', 'playwright'}))"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}  # no expression parsed before
    run = [sys.executable, "-c", code]
    out = subprocess.run(run, capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "['lark']"
    again = subprocess.run(run, capture_output=True, text=True, check=True, env=env)
    assert again.stdout.strip() == "[]"


CASED = """\
template: cased
version: 1.0.0
inputs:
  type: object
  properties:
    url: {type: string}
outputs:
  type: object
  additionalProperties: false
  properties:
    title: {type: string}
steps:
  - id: open
    action: navigate
    with: {url: "${{ inputs.url }}"}
output:
  title: ${{ steps.open.title }}
"""


def test_test_case_files_are_checked_beside_their_templates(tmp_path: Path) -> None:
    (tmp_path / "cased.yaml").write_text(CASED, encoding="utf-8")
    (tmp_path / "cased.recordings").mkdir()
    (tmp_path / "cased.recordings" / "a.har").write_text('{"log": {"entries": []}}')
    case = tmp_path / "cased.test.yaml"
    good = (
        "template: cased.yaml\ncases:\n"
        "- name: a\n  inputs: {url: 'https://example.org/'}\n  recording: cased.recordings/a.har\n"
        "  expect:\n    status: succeeded\n    output: {equals: {title: Example}}\n"
    )
    case.write_text(good, encoding="utf-8")
    code, out, err = run(str(tmp_path))
    assert (code, out) == (0, ""), out
    assert "1 template and 1 case file checked: 0 errors, 0 warnings" in err
    bad = (
        good.replace("name: a\n", "name: a\n  clocks: x\n")
        .replace("{title: Example}", "{title: 3}")
        .replace("a.har", "b.har")
    )
    case.write_text(bad, encoding="utf-8")
    code, out, _ = run(str(case))
    assert code == 1
    assert "cased.test.yaml:4:1: error: unknown key 'clocks' (did you mean 'clock'?)" in out
    case.write_text(bad.replace("  clocks: x\n", ""), encoding="utf-8")
    code, out, _ = run(str(case), "--format", "json")
    found = [(d["line"], d["rule"], d["message"]) for d in json.loads(out)]
    assert found == [
        (
            3,
            "test-case",
            "case 'a': its recording b.har is not there (record it with `dsl record`)",
        ),
        (
            3,
            "test-case",
            "case 'a': the expected output cannot match the template's outputs schema at "
            "/title: 3 is not of type 'string'",
        ),
    ]
    pointer = good.replace("{equals: {title: Example}}", "{at: {/titel: Example}}")
    case.write_text(pointer, encoding="utf-8")
    code, out, _ = run(str(case))
    assert "expects output /titel, which the template's outputs schema does not allow" in out
    case.write_text(good.replace("status: succeeded\n", "items: {loop: pages}\n"))
    code, out, _ = run(str(case))
    assert (
        code == 1
        and (
            "case 'a': expects the items of loop pages, which the template does not have (its "
            "forEach steps: none)"
        )
        in out
    )
