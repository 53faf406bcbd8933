"""The documentation is tested: generated references are current, the published meta-schema
accepts every shipped template, and every example in the guides gives what the guide says."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from taskplate.cli.commands.docs import generated
from taskplate.cli.main import cli
from taskplate.dsl import check_source
from taskplate.dsl._yaml import load_yaml
from taskplate.stdlib import REGISTRY
from tests.fixtures.server import PASSWORD, USER, FixtureServer
from tests.server.conftest import DSL

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
TEMPLATES = sorted(
    p for p in (ROOT / "templates").glob("*.yaml") if not p.name.endswith(".test.yaml")
) + [
    p  # the clean validator cases: those without expected lines
    for p in sorted((ROOT / "tests/dsl/rules").glob("*/*.yaml"))
    if not p.with_suffix(".out").exists()
]


@pytest.mark.parametrize("path", list(generated()), ids=lambda p: p.name)
def test_generated_reference_is_up_to_date(path: Path) -> None:
    assert path.read_text(encoding="utf-8") == generated()[path], "run `make docs`"


def test_published_meta_schema_is_valid_and_accepts_every_shipped_template() -> None:
    schema = json.loads((DOCS / "template.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in TEMPLATES:
        # YAML 1.2, as taskplate and editors read it (PyYAML's 1.1 would read the key `on` as true).
        errors = list(validator.iter_errors(load_yaml(path.read_text(encoding="utf-8")).data))
        assert errors == [], path


def test_every_action_and_function_is_documented() -> None:
    actions = (DOCS / "actions.md").read_text(encoding="utf-8")
    expressions = (DOCS / "expressions.md").read_text(encoding="utf-8")
    assert all(f"## `{name}`" in actions for name in REGISTRY)
    from taskplate.dsl import FUNCTIONS

    assert all(f"| `{name}` |" in expressions for name in FUNCTIONS)


def test_actions_reference_gives_the_shape_of_every_object_argument() -> None:
    """A map argument (hand_over's until), the values of a map of names (extract's fields) and
    a shape that nests in itself (a record's fields) each have their table."""
    actions = (DOCS / "actions.md").read_text(encoding="utf-8")
    extract = actions.split("## `extract`", 1)[1].split("\n## ", 1)[0]
    assert "`fields.<name>`: string, or a map:" in extract
    assert "`fields.<name>.fields.<name>`: string, or a map:" in extract
    assert "the shape of `fields.<name>.fields.<name>` again, to any depth" in extract
    assert "A map that reads a record (fields): attr and type belong" in extract
    hand_over = actions.split("## `hand_over`", 1)[1]
    assert "`until`: a map:" in hand_over and "| `urlMatches` | string |" in hand_over


def _blocks(path: Path, lang: str) -> list[str]:
    return _blocks_of(path.read_text(encoding="utf-8"), lang)


def _blocks_of(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize(
    "guide", ["authoring.md", "extracting.md", "reading.md", "recorded-templates.md"]
)
def test_full_templates_in_guides_validate_clean(guide: str) -> None:
    blocks = [
        b
        for b in _blocks(DOCS / guide, "yaml")
        if b.startswith("template:") and "# invalid" not in b
    ]
    assert blocks
    for block in blocks:
        result = check_source(block, guide, REGISTRY)
        assert result.diagnostics == [], block


def test_parallel_items_shows_the_wrong_loop_refused_and_the_right_one_clean() -> None:
    text = (DOCS / "authoring.md").read_text(encoding="utf-8")
    section = text.split("## Parallel items", 1)[1].split("\n## ", 1)[0]
    wrong, right = re.findall(r"```yaml\n(.*?)```", section, flags=re.S)[:2]
    shown = re.findall(r"```text\n(.*?)```", section, flags=re.S)[0]
    found = check_source(wrong, "shop_prices.yaml", REGISTRY).diagnostics
    assert "".join(d.header() + "\n" for d in found) == shown
    assert check_source(right, "shop_prices.yaml", REGISTRY).diagnostics == []
    assert wrong.split("\n", 1)[1] == right.replace("tab: new", "tab: main")  # one line apart
    without = right.replace("    tab: new\n", "")  # no tab line: a tab per item by default
    assert check_source(without, "shop_prices.yaml", REGISTRY).diagnostics == []


def test_validate_guide_shows_the_real_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = next(b for b in _blocks(DOCS / "validate.md", "yaml") if "# invalid" in b)
    expected = _blocks(DOCS / "validate.md", "text")[0]
    (tmp_path / "broken.yaml").write_text(bad, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["validate", "broken.yaml"])
    assert result.exit_code == 1
    assert result.stdout == expected


def test_the_mcp_guide_states_the_limits_the_server_enforces() -> None:
    """docs/mcp.md's table of limits, against the numbers in the code."""
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    from taskplate.contract import MAX_VALUE_DEPTH
    from taskplate.interpreter import Limits
    from taskplate.interpreter._admission import MAX_URL_BYTES
    from taskplate.server import _schemas
    from taskplate.server.transports import _auth, _jsonrpc
    from taskplate.stdlib import _schemas as action_schemas
    from taskplate.stdlib.interaction import evaluate
    from taskplate.stdlib.web import _client as _web
    from taskplate.stdlib.web import _decoding

    guide = (DOCS / "mcp.md").read_text(encoding="utf-8")
    limits = Limits()
    facts = {
        f"`maxInputBytes` ({limits.max_input_bytes // 2**20} MiB)": limits.max_input_bytes % 2**20,
        f"`maxArtifactInlineBytes` ({limits.max_artifact_inline_bytes // 1024} KiB)": 0,
        f"`maxRunTimeoutMs` ({limits.max_run_timeout_ms // 60_000} min)": 0,
        f"| {MAX_URL_BYTES // 1024} KiB |": MAX_URL_BYTES % 1024,
        f"1 to {_schemas.MAX_MS:,} ms": 0,
        "0 to 2^53−1": _schemas.MAX_OFFSET - (2**53 - 1),
        f"1 to {action_schemas.TIMEOUT_MS['maximum']:,} ms": 0,
        f"{evaluate.DEFAULT_TIMEOUT_MS:,} ms unless given": 0,
        f"at most {evaluate.MAX_DEPTH} levels deep": 0,
        f"at most {MAX_VALUE_DEPTH} levels of lists and objects (`MAX_VALUE_DEPTH`": 0,
        f"0 to {action_schemas.MAX_INDEX:,}": 0,
        f"deeper than {_jsonrpc.MAX_READ_DEPTH:,} levels": 0,
        f"more than {_jsonrpc.MAX_DIGITS:,} digits": 0,
        f"larger than {DEFAULT_MAX_REQUEST_BODY_SIZE // 2**20} MiB": 0,
        "`NAME` 1 to 64 of `A-Z a-z 0-9 . _ @ -`": _auth.PRINCIPAL_NAME.pattern
        != "[A-Za-z0-9][A-Za-z0-9._@-]{0,63}",
        f"at most {_decoding.STEP // 1024} KiB a step": _decoding.STEP % 1024,
        f"(up to {_decoding.MAX_STACKED} stacked)": 0,
        f"more than {_decoding.MAX_STACKED} times over": 0,
        f"{_web.SITEMAP_MAX_BYTES:,} bytes as it comes": 0,
        f"at most {_web.SITEMAP_MAX_FILES} sitemap files": 0,
    }
    assert [fact for fact, rest in facts.items() if fact not in guide or rest] == []


def test_the_login_walkthrough_signs_in_once_and_the_second_run_starts_signed_in(
    site: FixtureServer, tmp_path: Path
) -> None:
    text = (DOCS / "authoring.md").read_text(encoding="utf-8")
    section = text.split("## Keeping a login", 1)[1].split("\n## ", 1)[0]
    (tmp_path / "shop_login.yaml").write_text(_blocks_of(section, "yaml")[0], encoding="utf-8")
    # the password from a file, as the guide runs it: never on the command line
    said = " ".join(section.split())
    assert "--input-file password=password.txt" in said and "--input password=" not in said
    (tmp_path / "password.txt").write_text(PASSWORD + "\n", encoding="utf-8")
    env = {**os.environ, "TASKPLATE_HOME": str(tmp_path / "home")}
    command = [DSL, "run", "shop_login.yaml", "--json", "--input", f"username={USER}"]
    command += ["--input-file", "password=password.txt"]
    command += ["--input", f"membersUrl={site.url('/members')}"]

    def run(*more: str) -> dict[str, Any]:
        done = subprocess.run(
            [*command, *more], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout)["result"])

    def version(profile: str) -> int:
        meta = tmp_path / "home/profiles" / profile / "meta.json"
        return int(json.loads(meta.read_text(encoding="utf-8"))["version"])

    assert run() == {"url": site.url("/members"), "signedInNow": True}
    assert version("shop") == 1
    assert run() == {"url": site.url("/members"), "signedInNow": False}
    shop = version("shop")  # 2: the site's refreshed visit cookie was published back
    # another profile (run.profileId names it): signed in there, the shop profile left alone
    assert run("--profile", "work") == {"url": site.url("/members"), "signedInNow": True}
    assert version("work") >= 1 and version("shop") == shop


def test_the_ci_example_installs_as_the_readme_does() -> None:
    readme = _blocks(ROOT / "README.md", "sh")[0]
    ci = next(b for b in _blocks(DOCS / "testing.md", "yaml") if "runs-on:" in b)
    installs = re.findall(r"- run: (.*(?:pip|pipx|uv tool) install.*)", ci)
    assert installs and all(line in readme for line in installs), installs


def test_authoring_stays_a_guide_and_its_figures_are_on_the_benchmarks_page() -> None:
    authoring = (DOCS / "authoring.md").read_text(encoding="utf-8")
    assert len(authoring.splitlines()) <= 600
    assert "benchmarks.md" in authoring and "| F1 per fold |" not in authoring
    assert "| F1 per fold |" in (DOCS / "benchmarks.md").read_text(encoding="utf-8")
