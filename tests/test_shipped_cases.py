"""The shipped templates' recorded test cases pass offline, as `dsl test templates/` runs them
(recorded from the fixture site by tests/fixtures/shipped_cases.py, `make cases`), and their
recordings keep the fixture login's password out."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.fixtures.server import PASSWORD
from tests.server.conftest import DSL

ROOT = Path(__file__).parents[1]
TEMPLATES = ROOT / "templates"


def test_every_shipped_case_passes_offline(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TASKPLATE_LLM_")}
    env["TASKPLATE_HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [DSL, "test", str(TEMPLATES), "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert {c["case"]: c["outcome"] for c in report["cases"]} == {
        "batch_extract_pages/two_pages": "passed",
        "extract_structured/recipe": "passed",
        "login_keep_session/signed_in": "passed",
        "multi_tab_compare/three_pages": "passed",
        "crawl_site/http_depth_1": "passed",
        "map_site/sitemap": "passed",
        "summarize_pages_to_file/two_pages": "passed",  # disabled by configuration: tested
    }


def test_no_recording_or_case_holds_the_password() -> None:
    kept = [*TEMPLATES.glob("*.test.yaml"), *TEMPLATES.glob("*.recordings/*.har")]
    assert len(kept) == 14
    for path in kept:
        assert PASSWORD not in path.read_text(encoding="utf-8"), path
