"""`dsl record` and `dsl test` over the real Chromium: a run recorded from the fixture site
replays offline once the site is gone, the same on every run, with the secret never kept; a
case that no longer matches fails with a diff; a case that cannot run is refused with its file
and line, and nothing runs or is left behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.fixtures.server import PASSWORD, USER, serve
from tests.fixtures.static_site import static_site
from tests.server.conftest import DSL

ITEMS = """\
template: items
version: 1.0.0
name: Items
description: Read the name and price of each item page.
trust: [local]
inputs:
  type: object
  additionalProperties: false
  required: [urls]
  properties:
    urls: {type: array, items: {type: string}}
steps:
  - id: pages
    forEach: ${{ inputs.urls }}
    as: url
    tab: new
    steps:
      - id: open
        action: navigate
        with: {url: "${{ url }}"}
      - id: read
        action: extract
        with:
          fields:
            name: {selector: ".name"}
            price: {selector: ".price"}
    collect:
      name: ${{ steps.read.values.name }}
      price: ${{ steps.read.values.price }}
output:
  items: ${{ steps.pages.items }}
  at: ${{ now() }}
"""


def dsl(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`dsl ARGS` in `folder`, in a data home and a temporary folder of its own, its processes
    marked so that the test can see none is left."""
    (folder / "tmp").mkdir(exist_ok=True)
    mark = uuid.uuid4().hex
    env = {
        **{
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("TASKPLATE_SECRET_", "TASKPLATE_LLM_"))
        },
        "TASKPLATE_HOME": str(folder / "home"),
        "TMPDIR": str(folder / "tmp"),
        "TASKPLATE_TEST_MARK": mark,
        **(env or {}),
    }
    done = subprocess.run(
        [DSL, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=240
    )
    assert _marked(mark) == [], "a process of the command is still running"
    return done


def _marked(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"TASKPLATE_TEST_MARK={mark}".encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder with items.yaml and its case `two`, recorded from a fixture site that is gone
    when the tests run."""
    folder = tmp_path_factory.mktemp("recorded")
    (folder / "items.yaml").write_text(ITEMS, encoding="utf-8")
    with serve() as site:
        urls = json.dumps([site.url("/item?n=1"), site.url("/item?n=2")])
        done = dsl(folder, "record", "items.yaml", "--input", f"urls={urls}", "--name", "two")
    assert done.returncode == 0, done.stderr
    assert "recorded items/two: succeeded" in done.stderr
    yield folder


@pytest.fixture
def cases(recorded: Path, tmp_path: Path) -> Path:
    """A copy of the recorded folder for one test to change."""
    folder = tmp_path / "cases"
    shutil.copytree(recorded, folder, ignore=shutil.ignore_patterns("home", "tmp"))
    return folder


def test_a_recorded_case_replays_offline_the_same_three_times(cases: Path) -> None:
    written = (cases / "items.test.yaml").read_text(encoding="utf-8")
    assert "recording: items.recordings/two.har" in written
    assert "name: Item 2" in written and "success:\n      - true\n      - true" in written
    outputs = []
    for _ in range(3):
        done = dsl(cases, "test", "--format", "json")
        assert done.returncode == 0, done.stdout + done.stderr
        report = json.loads(done.stdout)
        assert [c["outcome"] for c in report["cases"]] == ["passed"]
        outputs.append(report["cases"][0]["status"])
    assert outputs == ["succeeded"] * 3
    assert list((cases / "tmp").iterdir()) == []  # the test's data home is gone with it


def test_the_summary_and_junit_report_name_the_case(cases: Path) -> None:
    text = dsl(cases, "test", "items.yaml")
    assert text.returncode == 0
    assert "ok   items/two" in text.stdout
    assert "1 case run offline: 1 passed, 0 failed, 0 could not run" in text.stdout
    junit = dsl(cases, "test", "items/two", "--format", "junit")
    suite = ElementTree.fromstring(junit.stdout)
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "0")
    assert suite[0].get("name") == "two" and suite[0].get("classname") == "items"


def test_an_expectation_the_run_breaks_fails_with_a_diff(cases: Path) -> None:
    file = cases / "items.test.yaml"
    file.write_text(file.read_text().replace("price: '2.50'", "price: '9.99'"), encoding="utf-8")
    done = dsl(cases, "test")
    assert done.returncode == 1, done.stdout
    assert "FAIL items/two" in done.stdout
    assert '-      "price": "9.99"' in done.stdout and '+      "price": "2.50"' in done.stdout
    junit = dsl(cases, "test", "--format", "junit")
    assert ElementTree.fromstring(junit.stdout).get("failures") == "1"


def test_a_loosened_expectation_passes(cases: Path) -> None:
    file = cases / "items.test.yaml"
    text = file.read_text(encoding="utf-8")
    head = text[: text.index("    output:")]
    loose = head + "    output:\n      at:\n        /items/1/name: Item 2\n"
    file.write_text(loose, encoding="utf-8")
    assert dsl(cases, "test").returncode == 0


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("missing", "the recording is missing"),
        ("corrupt", "not a HAR recording: not JSON"),
        ("other", "was made of other.yaml, not items.yaml"),
        (
            "input",
            "names the input 'url', which items.yaml does not declare (did you mean 'urls'?)",
        ),
        ("key", "unknown key 'expects' (did you mean 'expect'?)"),
    ],
)
def test_a_case_that_cannot_run_is_refused_with_its_file_and_line(
    cases: Path, change: str, said: str
) -> None:
    har, file = cases / "items.recordings" / "two.har", cases / "items.test.yaml"
    if change == "missing":
        har.unlink()
    elif change == "corrupt":
        har.write_text('{"log": {"entr', encoding="utf-8")
    elif change == "other":
        data = json.loads(har.read_text(encoding="utf-8"))
        data["log"]["_taskplate"]["template"] = "other.yaml"
        har.write_text(json.dumps(data), encoding="utf-8")
    elif change == "input":
        file.write_text(file.read_text().replace("    urls:", "    url:"), encoding="utf-8")
    else:
        file.write_text(file.read_text().replace("  expect:", "  expects:"), encoding="utf-8")
    done = dsl(cases, "test")
    assert done.returncode == 2, done.stdout
    assert "items.test.yaml:" in done.stdout and said in done.stdout
    assert "ok " not in done.stdout and "FAIL" not in done.stdout  # nothing ran


def test_no_case_file_is_a_usage_error(tmp_path: Path) -> None:
    done = dsl(tmp_path, "test")
    assert done.returncode == 2
    assert "no test cases found" in done.stderr


def test_a_secret_is_kept_out_of_the_recording_and_the_case_and_replays_masked(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "login"
    folder.mkdir()
    template = Path(__file__).parents[2] / "templates" / "login_keep_session.yaml"
    shutil.copy(template, folder / "login_keep_session.yaml")
    with serve() as site:
        done = dsl(
            folder,
            "record",
            "login_keep_session.yaml",
            "--input",
            f"loginUrl={site.url('/login')}",
            "--input",
            f"username={USER}",
            "--input",
            f"password={PASSWORD}",
            "--input",
            "successSelector=#welcome",
            "--name",
            "ada",
        )
        assert done.returncode == 0, done.stderr
        secret = {"TASKPLATE_SECRET_PASSWORD": PASSWORD}
        for _ in range(2):  # the second live run as the first left the profiles
            live = dsl(folder, "test", "--live", "--format", "json", env=secret)
            assert live.returncode == 0, live.stdout + live.stderr
            drift = "\n".join(json.loads(live.stdout)["cases"][0].get("drift", []))
            moved = [line for line in drift.splitlines() if line.startswith(("-", "+"))]
            assert '   "profileVersion": 1,' in drift.splitlines(), drift  # recorded and now
            assert not [line for line in moved if "profile" in line], drift  # no drift
    meta = json.loads((folder / "home/profiles/master/meta.json").read_text(encoding="utf-8"))
    assert meta["version"] == 0  # recorded and run live, the case never changed the login
    case = (folder / "login_keep_session.test.yaml").read_text(encoding="utf-8")
    assert "$env: TASKPLATE_SECRET_PASSWORD" in case
    assert "status: succeeded" in case
    assert "sessionId" not in case  # a new one each run: not expected
    from urllib.parse import quote, quote_plus

    for path in [folder / "login_keep_session.test.yaml", *folder.rglob("*.har")]:
        data = path.read_text(encoding="utf-8")
        for form in (PASSWORD, quote(PASSWORD), quote_plus(PASSWORD)):
            assert form not in data, f"{path.name} holds the password"
    replayed = dsl(folder, "test")  # no TASKPLATE_SECRET_PASSWORD, no site
    assert replayed.returncode == 0, replayed.stdout


def item_page(n: int, price: bool = True) -> str:
    shown = f"<p class=price>{n}.50</p>" if price else ""
    return f"<!doctype html><title>Item {n}</title><main><h1 class=name>Item {n}</h1>{shown}</main>"


def test_live_reports_drift_from_the_recording_and_rewrites_nothing(tmp_path: Path) -> None:
    pages, folder = tmp_path / "pages", tmp_path / "case"
    pages.mkdir()
    folder.mkdir()
    (folder / "items.yaml").write_text(ITEMS, encoding="utf-8")
    for n in (1, 2):
        (pages / f"{n}.html").write_text(item_page(n), encoding="utf-8")
    with static_site(pages) as base:
        urls = json.dumps([f"{base}/1.html", f"{base}/2.html"])
        assert dsl(folder, "record", "items.yaml", "--input", f"urls={urls}").returncode == 0
        kept = {
            p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and "home" not in p.parts
        }
        unchanged = dsl(folder, "test", "--live", "--format", "json")
        assert unchanged.returncode == 1  # the output holds now(): it moved, nothing else did
        report = json.loads(unchanged.stdout)["cases"][0]
        assert [b["expectation"] for b in report["broken"]] == ["output"]
        assert not any("lost fields" in line for line in report["drift"])
        (pages / "2.html").write_text(item_page(2, price=False), encoding="utf-8")
        drifted = dsl(folder, "test", "--live")
    assert drifted.returncode == 1
    assert "drift from the recording:" in drifted.stdout
    assert "/items: 1 of 2 records (50%) lost fields they had when recorded (records 1)" in (
        drifted.stdout
    )
    assert '-      "price": "2.50"' in drifted.stdout
    assert "run live" in drifted.stdout
    assert {p: p.read_bytes() for p in kept} == kept  # nothing rewritten


def test_the_models_answers_are_recorded_and_replayed_without_a_model(tmp_path: Path) -> None:
    from tests.cli.test_llm_run import TEMPLATE
    from tests.fixtures.chat_completions import chat_endpoint

    folder = tmp_path / "llm"
    folder.mkdir()
    shutil.copy(TEMPLATE, folder / "llm_page.yaml")
    with chat_endpoint(['{"subject": "bread", "number": 3}']) as endpoint, serve() as site:
        model = {"TASKPLATE_LLM_URL": endpoint.url, "TASKPLATE_LLM_MODEL": "fake-1"}
        done = dsl(
            folder,
            "record",
            "llm_page.yaml",
            "--input",
            f"url={site.url('/article.html')}",
            "--input",
            "token=s3cr3t-value",
            env=model,
        )
        assert done.returncode == 0, done.stderr
        assert len(endpoint.requests) == 1
        case = (folder / "llm_page.test.yaml").read_text(encoding="utf-8")
        assert "subject: bread" in case and "$env: TASKPLATE_SECRET_TOKEN" in case
        har = (folder / "llm_page.recordings" / "default.har").read_text(encoding="utf-8")
        assert '"answer": "{\\"subject\\": \\"bread\\", \\"number\\": 3}"' in har
        assert '"model": "fake-1"' in har
        assert "s3cr3t-value" not in har and "s3cr3t-value" not in case
    replayed = dsl(folder, "test")  # no endpoint, no site, no secret
    assert replayed.returncode == 0, replayed.stdout
    assert len(endpoint.requests) == 1
