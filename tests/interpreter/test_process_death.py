"""A taskplate process killed mid-run: the next process reports the run still running, left
for `dsl run --resume` (#55), which finishes it; the store is intact, and artifacts of
finished runs still read back byte-identical."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from taskplate.interpreter import SHIPPED, RunManager, RunStore, TemplateLibrary
from taskplate.stdlib import REGISTRY
from tests.fixtures.server import FixtureServer

DSL = str(Path(sys.executable).parent / "dsl")


def dsl_run(home: Path, urls: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "TASKPLATE_HOME": str(home)}
    command = [
        DSL,
        "run",
        "batch_extract_pages",
        "--json",
        "--input",
        f"urls={json.dumps(urls)}",
        "--input",
        "waitFor=1",
    ]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.anyio
async def test_a_killed_process_leaves_a_resumable_run_and_an_intact_store(
    tmp_path: Path, site: FixtureServer
) -> None:
    home = tmp_path / "home"
    finished = dsl_run(home, [site.url("/article.html")])
    out, err = finished.communicate(timeout=120)
    assert finished.returncode == 0, err
    first = json.loads(out)
    artifact_id = first["result"]["exportArtifactId"]
    async with RunStore(home / "runs.db") as store:
        before = (home / "artifacts" / first["runId"] / artifact_id).read_bytes()

        doomed = dsl_run(home, [site.url(f"/slow?ms=5000&n={i}") for i in range(4)])
        deadline = time.monotonic() + 60
        while True:
            listed, _ = await store.list_runs("running", None, 10, 0)
            if listed or time.monotonic() > deadline:
                break
            await anyio.sleep(0.1)
        assert listed, "the second run never started"
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.communicate(timeout=30)  # also closes its pipes

        async with RunManager(home, TemplateLibrary(REGISTRY).load([SHIPPED])) as manager:
            answer = await manager.describe(listed[0].run_id)
            assert answer["status"] == "running"  # not failed: `dsl run --resume` goes on
            assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert (await manager.artifacts.read(artifact_id)).data == before
            assert (await manager.describe(first["runId"]))["status"] == "succeeded"
        env = {**os.environ, "TASKPLATE_HOME": str(home)}
        resumed = subprocess.run(
            [DSL, "run", "--resume", listed[0].run_id, "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout)["status"] == "succeeded"


@pytest.mark.parametrize("n", [1])
def test_cli_runs_show_list_cancel_and_artifact_get(
    tmp_path: Path, site: FixtureServer, n: int
) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "TASKPLATE_HOME": str(home)}
    done = dsl_run(home, [site.url("/recipe.html")])
    out, _ = done.communicate(timeout=120)
    run = json.loads(out)

    def dsl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([DSL, *args], env=env, capture_output=True, text=True, timeout=60)

    listed = json.loads(dsl("runs", "list").stdout)
    assert listed["total"] == n and listed["runs"][0]["runId"] == run["runId"]
    shown = json.loads(dsl("runs", "show", run["runId"], "--steps").stdout)
    assert shown["status"] == "succeeded" and shown["steps"][0]["action"] == "read_page"
    assert json.loads(dsl("runs", "cancel", run["runId"]).stdout) == {
        "cancelRequested": False,
        "currentStatus": "succeeded",
    }
    target = tmp_path / "pages.json"
    got = dsl("artifact", "get", run["artifacts"][0]["artifactId"], "-o", str(target))
    assert (
        got.returncode == 0
        and json.loads(target.read_text())[0]["title"] == "Weeknight lentil soup"
    )
    missing = dsl("runs", "show", "run_nope")
    assert missing.returncode == 1 and missing.stderr.startswith(
        "error: no run run_nope [RUN_NOT_FOUND]"
    )
    assert "Traceback" not in missing.stderr
    bad_input = dsl("run", "batch_extract_pages", "--input", "urls=not-a-list")
    assert (
        bad_input.returncode == 1
        and "[INVALID_PARAMETER]" in bad_input.stderr
        and "/urls" in bad_input.stderr
    )


def test_doctor_checks_the_set_up(tmp_path: Path) -> None:
    done = subprocess.run(
        [DSL, "doctor"],
        env={**os.environ, "TASKPLATE_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   browser answers" in done.stdout and "6 templates served" in done.stdout


def test_run_shows_a_live_progress_bar_on_a_terminal(tmp_path: Path, site: FixtureServer) -> None:
    env = {**os.environ, "TASKPLATE_HOME": str(tmp_path), "FORCE_COLOR": "1", "COLUMNS": "160"}
    urls = [site.url(f"/slow?ms=300&n={i}") for i in range(4)]
    command = [
        DSL,
        "run",
        "batch_extract_pages",
        "--input",
        f"urls={json.dumps(urls)}",
        "--input",
        "waitFor=1",
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (
        "batch_extract_pages" in done.stderr and "4/4" in done.stderr and "0 failed" in done.stderr
    )
    assert json.loads(done.stdout)["status"] == "succeeded"  # the JSON stays clean on stdout
