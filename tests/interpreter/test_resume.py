"""A run outlives its process (#55): a `dsl serve` (SQLite) SIGKILLed mid-run and started again
goes on with its runs under the same ids from their checkpoints (finished items not read
again), refuses an L2 step that was in flight, runs an `onResume: restart` group again whole,
and ends what cannot resume (secret inputs, a changed template) with RUN_NOT_RESUMABLE;
`dsl run --resume RUN_ID` does the same for a killed `dsl run`."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from taskplate.interpreter import RunStore
from tests.fixtures.processes import end
from tests.fixtures.server import FixtureServer
from tests.server.conftest import start_http, stop
from tests.server.test_transports import call

pytestmark = pytest.mark.anyio

DSL = str(Path(sys.executable).parent / "dsl")
TEMPLATES = Path(__file__).parent / "resume_templates"


def gated(site: FixtureServer, names: list[str]) -> list[str]:
    return [site.url(f"/gate?n={name}") for name in names]


def asked(site: FixtureServer, name: str) -> int:
    """How often /gate?n=`name` was asked for."""
    return Counter(site.traffic.targets)[f"/gate?n={name}"]


async def until_waiting(site: FixtureServer, *names: str) -> None:
    """Until every gate named is held open by a request."""
    with anyio.fail_after(60):
        while not set(names) <= set(site.waiting):
            await anyio.sleep(0.05)


async def until_kept(store: RunStore, run_id: str, keys: set[str]) -> None:
    """Until the run's checkpoints hold every key named."""
    with anyio.fail_after(60):
        while not keys <= {c["key"] for c in await store.checkpoints(run_id)}:
            await anyio.sleep(0.05)


async def ended(client: Client, run_id: str) -> dict[str, Any]:
    with anyio.fail_after(90):
        while True:
            run = await call(client, "get_task_run", runId=run_id)
            if run["status"] in ("succeeded", "failed", "partial_success", "canceled"):
                return run
            await anyio.sleep(0.1)


async def start(client: Client, template: str, **inputs: Any) -> str:
    answer = await call(
        client, "run_task_template", templateId=template, inputs=inputs, options={"mode": "async"}
    )
    assert not answer["isError"], answer
    return str(answer["runId"])


async def test_a_killed_server_started_again_resumes_its_runs_from_their_checkpoints(
    tmp_path: Path, site: FixtureServer
) -> None:
    home, templates = tmp_path / "home", tmp_path / "templates"
    home.mkdir()
    shutil.copytree(TEMPLATES, templates)
    env = {"TASKPLATE_TEMPLATES": str(templates), "TASKPLATE_MAX_CONCURRENT_RUNS": "8"}
    pages = [f"sq{i}" for i in range(8)]
    site.open_gate(pages[0])
    site.open_gate(pages[1])
    first = start_http(home, "--trust", "local", env=env)
    try:
        async with Client(first.url) as client:
            batch = await start(
                client,
                "batch_extract_pages",
                urls=gated(site, pages),
                engine="http",
                concurrency=1,  # 3 pages over HTTP at once
            )
            base = site.base
            effect = await start(client, "resume_effect", base=base, gate="sq-effect")
            again = await start(client, "resume_restart", base=base, gate="sq-restart")
            secret = await start(
                client, "resume_secret", base=base, gate="sq-secret", password="hunter2"
            )
            changed = await start(client, "resume_changed", base=base, gate="sq-changed")
            held = ("sq2", "sq3", "sq4", "sq-effect", "sq-restart", "sq-secret", "sq-changed")
            await until_waiting(site, *held)
            async with RunStore(home / "runs.db") as store:
                await until_kept(store, batch, {"item:pages:0", "item:pages:1"})
                kept = await store.checkpoints(secret)
        os.kill(first.process.pid, signal.SIGKILL)
        end(first.process, first.log)
        assert all("hunter2" not in json.dumps(c) for c in kept), kept
        edited = templates / "resume_changed.yaml"
        edited.write_text(edited.read_text().replace("changes while", "changed while"))
        for name in [*pages, *held]:
            site.open_gate(name)
        second = start_http(home, "--trust", "local", env=env)
        try:
            async with Client(second.url) as client:
                done = await ended(client, batch)
                refused = await ended(client, effect)
                restarted = await ended(client, again)
                no_secret = await ended(client, secret)
                no_change = await ended(client, changed)
        finally:
            stop(second)
    finally:
        stop(first)

    assert done["status"] == "succeeded", done
    urls = [item["url"] for item in done["result"]["items"]]
    assert urls == gated(site, pages), urls  # every item exactly once, in order
    assert asked(site, "sq0") == asked(site, "sq1") == 1  # finished before: not read again
    assert all(asked(site, p) == 1 for p in pages[5:])  # never started before the kill
    assert all(asked(site, p) <= 2 for p in pages[2:5])  # in flight: read again

    assert refused["status"] == "failed", refused
    assert refused["error"]["errorCode"] == "STEP_MAY_HAVE_TAKEN_EFFECT", refused
    assert refused["error"]["details"]["step"] == "order", refused
    assert refused["error"]["recoverHint"], refused
    assert asked(site, "sq-effect") == 1  # not repeated

    assert restarted["status"] == "succeeded", restarted
    assert restarted["result"] == {"value": 200}, restarted
    assert asked(site, "sq-restart") == 2  # the group ran again whole

    for run, why in ((no_secret, "secret inputs"), (no_change, "changed")):
        assert run["status"] == "failed", run
        assert run["error"]["errorCode"] == "RUN_NOT_RESUMABLE", run
        assert why in run["error"]["error"] and run["error"]["recoverHint"], run


def dsl_run(home: Path, urls: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "TASKPLATE_HOME": str(home)}
    command = [DSL, "run", "batch_extract_pages", "--json", "--input", f"urls={json.dumps(urls)}"]
    command += ["--input", "engine=http", "--input", "concurrency=1"]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


async def test_dsl_run_resume_goes_on_with_a_killed_dsl_run(
    tmp_path: Path, site: FixtureServer
) -> None:
    home = tmp_path / "home"
    pages = [f"cli{i}" for i in range(6)]
    site.open_gate(pages[0])
    doomed = dsl_run(home, gated(site, pages))
    try:
        await until_waiting(site, "cli1", "cli2", "cli3")
        async with RunStore(home / "runs.db") as store:
            listed, _ = await store.list_runs("running", None, 10, 0)
            run_id = listed[0].run_id
            await until_kept(store, run_id, {"item:pages:0"})
    finally:
        os.kill(doomed.pid, signal.SIGKILL)
        doomed.communicate(timeout=30)
    for name in pages:
        site.open_gate(name)
    env = {**os.environ, "TASKPLATE_HOME": str(home)}
    resumed = subprocess.run(
        [DSL, "run", "--resume", run_id, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    answer = json.loads(resumed.stdout)
    assert answer["runId"] == run_id and answer["status"] == "succeeded", answer
    assert [i["url"] for i in answer["result"]["items"]] == gated(site, pages)
    assert asked(site, "cli0") == 1
    again = subprocess.run(
        [DSL, "run", "--resume", "run_nope"], env=env, capture_output=True, text=True, timeout=60
    )
    assert again.returncode != 0 and "RUN_NOT_FOUND" in again.stderr, again.stderr
