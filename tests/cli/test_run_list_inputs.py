"""`dsl run --input KEY=VALUE`: a value given once for a list input is a list of one (as most
command lines read it), repeated keys and JSON lists as before, the rest left to the schema."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from taskplate.cli.commands.run import given_once, lists_of_one, parse_inputs
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL, env_for

SCHEMA = {
    "type": "object",
    "properties": {
        "urls": {"type": "array", "items": {"type": "string"}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "either": {"type": ["array", "string"]},
        "name": {"type": "string"},
    },
}


def read(*pairs: str) -> dict[str, object]:
    return lists_of_one(parse_inputs(pairs, None), SCHEMA, given_once(pairs))


def test_one_value_for_a_list_input_is_a_list_of_one() -> None:
    assert read("urls=https://example.org/a") == {"urls": ["https://example.org/a"]}
    assert read("ids=5") == {"ids": [5]}
    assert read("name=ada") == {"name": "ada"}  # not a list input: as given


def test_repeated_keys_and_json_lists_are_read_as_before() -> None:
    assert read("urls=https://a.test/", "urls=https://b.test/") == {
        "urls": ["https://a.test/", "https://b.test/"]
    }
    assert read('urls=["https://a.test/"]') == {"urls": ["https://a.test/"]}
    assert read("either=plain") == {"either": "plain"}  # the schema takes a string as it is


def test_an_inputs_file_is_not_rewritten(tmp_path: Path) -> None:
    file = tmp_path / "inputs.json"
    file.write_text(json.dumps({"urls": "https://a.test/"}))
    inputs = parse_inputs((), str(file))
    assert lists_of_one(inputs, SCHEMA, given_once(())) == {"urls": "https://a.test/"}


def test_dsl_run_reads_one_url_as_a_batch_of_one(site: FixtureServer, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            DSL,
            "run",
            "batch_extract_pages",
            "--json",
            "--input",
            f"urls={site.url('/article.html')}",
        ],
        env=env_for(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert run["status"] == "succeeded"
    assert [item["url"] for item in run["result"]["items"]] == [site.url("/article.html")]


def test_run_help_says_how_lists_are_given() -> None:
    done = subprocess.run([DSL, "run", "--help"], capture_output=True, text=True, timeout=60)
    assert "list of one" in " ".join(done.stdout.split())
