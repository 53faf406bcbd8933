"""`dsl template new NAME --from KIND`: a commented starter in NAME.yaml that `dsl validate`
passes as it is and that runs against the test site; bad names and existing files refused."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.server import PASSWORD, USER, FixtureServer
from tests.server.conftest import DSL


def dsl(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [DSL, *args],
        cwd=cwd,
        env={**os.environ, "TASKPLATE_HOME": str(cwd / "home")},
        capture_output=True,
        text=True,
        timeout=180,
    )


def inputs_for(kind: str, site: FixtureServer) -> list[str]:
    return {
        "blank": [f"url={site.url('/article.html')}"],
        "batch": [f"urls={site.url('/article.html')}", f"urls={site.url('/recipe.html')}"],
        "login": [
            f"loginUrl={site.url('/login')}",
            f"username={USER}",
            f"password={PASSWORD}",
        ],
        "crawl": [f"startUrl={site.url('/index.html')}", "maxPages=5"],
    }[kind]


@pytest.mark.parametrize("kind", ["blank", "batch", "login", "crawl"])
def test_a_starter_validates_clean_and_runs_against_the_site(
    kind: str, site: FixtureServer, tmp_path: Path
) -> None:
    made = dsl(tmp_path, "template", "new", f"my_{kind}", "--from", kind)
    assert made.returncode == 0, made.stderr
    path = tmp_path / f"my_{kind}.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# A taskplate template") and f"template: my_{kind} " in text
    assert f"dsl validate my_{kind}.yaml" in made.stdout
    checked = dsl(tmp_path, "validate", "--strict", path.name)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "0 errors, 0 warnings" in checked.stderr
    command = ["run", path.name, "--json"]
    for pair in inputs_for(kind, site):
        command += ["--input", pair]
    ran = dsl(tmp_path, *command)
    assert ran.returncode == 0, ran.stderr
    run = json.loads(ran.stdout)
    assert run["status"] == "succeeded", run
    result = run["result"]
    if kind == "blank":
        assert result["url"] == site.url("/article.html") and result["title"]
    elif kind == "batch":
        assert result["summary"]["succeeded"] == 2
        assert all(item["content"] for item in result["items"])
    elif kind == "login":
        assert result["url"] == site.url("/members") and result["signedInNow"] is True
        assert PASSWORD not in ran.stdout
        again = dsl(tmp_path, *command, "--input", f"checkUrl={site.url('/members')}")
        assert json.loads(again.stdout)["result"]["signedInNow"] is False, again.stderr
    else:
        assert 1 < result["summary"]["succeeded"] <= 5
        assert result["items"][0]["depth"] == 0 and result["items"][-1]["depth"] >= 1


def test_the_default_starter_is_blank_and_the_name_must_be_a_template_id(tmp_path: Path) -> None:
    made = dsl(tmp_path, "template", "new", "page_title")
    assert made.returncode == 0, made.stderr
    assert "action: get_page_info" in (tmp_path / "page_title.yaml").read_text()
    bad = dsl(tmp_path, "template", "new", "Page-Title")
    assert bad.returncode == 1 and "[INVALID_PARAMETER]" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".yaml") == ["page_title.yaml"]


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text("# my own work\n")
    again = dsl(tmp_path, "template", "new", "mine", "--from", "batch")
    assert again.returncode == 1 and "already there" in again.stderr and "--force" in again.stderr
    assert (tmp_path / "mine.yaml").read_text() == "# my own work\n"
    forced = dsl(tmp_path, "template", "new", "mine", "--from", "batch", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "forEach" in (tmp_path / "mine.yaml").read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
