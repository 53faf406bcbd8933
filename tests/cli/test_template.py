"""`dsl template list|show`: the templates `dsl serve` serves, read from the same library
(folders, taskplate.toml switches), with those it does not serve and why."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.server.conftest import DSL

pytestmark = pytest.mark.anyio

GOOD = """\
template: greet
version: 1.2.0
name: Greet
description: Says hello.
trust: [local, remote]
inputs:
  type: object
  required: [names]
  properties:
    names: {type: array, minItems: 1, items: {type: string}, description: Who to greet.}
    loud: {type: boolean, default: false}
outputs:
  type: object
  properties:
    text: {type: string}
steps:
  - id: say
    action: set
    with: {value: "${{ join(inputs.names, ', ') }}"}
output:
  text: ${{ steps.say.value }}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A template folder: one served, one switched off by its taskplate.toml, one broken."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "greet.yaml").write_text(GOOD)
    (folder / "hush.yaml").write_text(GOOD.replace("greet", "hush").replace("Greet", "Hush"))
    (folder / "broken.yaml").write_text(GOOD.replace("action: set", "action: sett"))
    (folder / "taskplate.toml").write_text('[templates]\ndisabled = ["hush"]\n')
    return folder


def env(tmp_path: Path, folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "TASKPLATE_HOME": str(tmp_path / "home"),
        "TASKPLATE_TEMPLATES": str(folder),
    }


def dsl(environment: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DSL, *args], env=environment, capture_output=True, text=True, timeout=60)


async def test_the_list_is_what_dsl_serve_serves_and_says_why_the_rest_is_not(
    tmp_path: Path, folder: Path
) -> None:
    environment = env(tmp_path, folder)
    listed = dsl(environment, "template", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    found = json.loads(listed.stdout)["templates"]
    served = [t for t in found if t["enabled"]]
    params = StdioServerParameters(command=DSL, args=["serve"], env=environment)
    async with Client(params) as client:
        answer = await client.call_tool("list_task_templates", {})
    assert answer.structured_content is not None
    mcp = answer.structured_content["templates"]
    assert [{k: v for k, v in t.items() if k not in ("enabled", "why")} for t in served] == mcp
    assert "greet" in [t["templateId"] for t in served]
    off = {t["path"]: t for t in found if not t["enabled"]}
    hush = off[str(folder / "hush.yaml")]
    assert hush["templateId"] == "hush" and "disabled by taskplate.toml" in hush["why"]
    broken = off[str(folder / "broken.yaml")]
    assert broken["templateId"] is None and "[unknown-action]" in broken["why"]
    assert "summarize_pages_to_file" in [t["templateId"] for t in off.values()]  # shipped, off

    table = dsl(environment, "template", "list")
    assert table.returncode == 0, table.stderr
    lines = {line.split()[0]: line for line in table.stdout.splitlines()[1:]}
    assert "1.2.0" in lines["greet"] and "Greet" in lines["greet"] and " L0 " in lines["greet"]
    assert " yes" in lines["greet"]
    assert "no: disabled by taskplate.toml" in lines["hush"]
    assert "no: not served:" in lines[str(folder / "broken.yaml")]
    assert "files" in lines["summarize_pages_to_file"]  # the provider it needs


def test_show_tells_the_inputs_outputs_and_how_to_run_it(tmp_path: Path, folder: Path) -> None:
    environment = env(tmp_path, folder)
    shown = dsl(environment, "template", "show", "greet")
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert text.startswith("greet 1.2.0: Greet\nSays hello.")
    assert "names (array of string, required)\n      Who to greet." in text
    assert "loud (boolean, default false)" in text
    assert "text (string)" in text
    assert "dsl run greet --input names=NAMES" in text
    as_json = json.loads(dsl(environment, "template", "show", "greet@^1.0", "--json").stdout)
    assert as_json["inputsSchema"]["required"] == ["names"] and as_json["enabled"] is True
    mcp = as_json["example"]["mcp"]
    assert mcp["arguments"] == {
        "templateId": "greet",
        "templateVersion": "1.2.0",
        "inputs": {"names": ["NAMES"]},
    }
    # The example line runs as printed (a list input given once is a list of one).
    ran = dsl(environment, *shlex.split(as_json["example"]["cli"])[1:], "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["result"] == {"text": "NAMES"}


def test_show_of_a_switched_off_template_says_so(tmp_path: Path, folder: Path) -> None:
    shown = dsl(env(tmp_path, folder), "template", "show", "hush")
    assert shown.returncode == 0, shown.stderr
    assert "not enabled: disabled by taskplate.toml" in shown.stdout


@pytest.mark.parametrize(
    ("ref", "code"),
    [("nope", "TEMPLATE_NOT_FOUND"), ("greet@9.0.0", "TEMPLATE_VERSION_UNSUPPORTED")],
)
def test_show_of_an_unknown_template_is_one_clear_line(
    tmp_path: Path, folder: Path, ref: str, code: str
) -> None:
    shown = dsl(env(tmp_path, folder), "template", "show", ref)
    assert shown.returncode == 1 and f"[{code}]" in shown.stderr
    assert "Traceback" not in shown.stderr and shown.stdout == ""
