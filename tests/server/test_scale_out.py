"""Several `dsl serve --transport http` processes on one real PostgreSQL store: runs submitted to
one are listed and read from another, a cancel crosses servers, a server killed with SIGKILL
mid-run leaves its running run (resumed from its checkpoints) and its queued run to the others, and
maxConcurrentRuns with its FIFO queue holds across all of them."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from taskplate.interpreter import open_store
from tests.fixtures.postgres import Postgres, alive
from tests.server.conftest import Served, end, start_http, stop
from tests.server.test_transports import call

pytestmark = pytest.mark.anyio


@pytest.fixture
def store_url(postgres: Postgres) -> Iterator[str]:
    with postgres.database() as url:
        yield url


def serve(
    tmp_path: Path,
    url: str,
    name: str,
    limit: int = 2,
    *wrapper: str,
    more_env: dict[str, str] | None = None,
) -> Served:
    """One server on the store, with a data home of its own (nothing shared but the store);
    `more_env`: more of its environment (e.g. TASKPLATE_TOKENS)."""
    home = tmp_path / name
    home.mkdir()
    env = {"TASKPLATE_STORE": url, "TASKPLATE_MAX_CONCURRENT_RUNS": str(limit), **(more_env or {})}
    if not wrapper:
        return start_http(home, "--trust", "local", env=env)
    return start_http(home, "--trust", "local", env=env, wrapper=wrapper)


async def submit(client: Client, ms: int = 50, items: int = 12) -> str:
    """The `pause` test template: `items` waits of `ms` (two at a time), no browser needed."""
    answer = await call(
        client,
        "run_task_template",
        templateId="pause",
        inputs={"ms": ms},
        options={"mode": "async"},
    )
    assert answer["status"] == "queued", answer
    return str(answer["runId"])


async def until(client: Client, run_id: str, *statuses: str, seconds: float = 60) -> dict[str, Any]:
    with anyio.fail_after(seconds):
        while True:
            run = await call(client, "get_task_run", runId=run_id)
            if run["status"] in statuses:
                return run
            await anyio.sleep(0.05)


async def test_runs_and_artifacts_of_one_server_are_read_from_another(
    tmp_path: Path, store_url: str
) -> None:
    one, two = serve(tmp_path, store_url, "one"), serve(tmp_path, store_url, "two")
    try:
        async with Client(one.url) as first, Client(two.url) as second:
            run_id = await submit(first)
            listed = await call(second, "list_task_runs", limit=100)
            assert run_id in {r["runId"] for r in listed["runs"]}
            done = await until(second, run_id, "succeeded", "failed")
            assert done["status"] == "succeeded" and len(done["result"]["items"]) == 12, done
            exported = await call(
                first,
                "run_steps",
                steps=[
                    {
                        "action": "export",
                        "with": {"name": "data.json", "data": {"n": list(range(5000))}},
                    }
                ],
            )
            assert exported["status"] == "succeeded", exported
            run = await call(second, "get_task_run", runId=exported["runId"])
            artifact = run["artifacts"][0]
            parts, offset = [], 0
            while True:  # read in chunks from the server that did not write it
                chunk = await call(
                    second,
                    "get_artifact",
                    artifactId=artifact["artifactId"],
                    offset=offset,
                    limit=8192,
                )
                assert not chunk["isError"], chunk
                parts.append(base64.b64decode(chunk["data"]))
                offset += chunk["bytesReturned"]
                if chunk["complete"]:
                    break
            assert json.loads(b"".join(parts)) == {"n": list(range(5000))}
            assert len(b"".join(parts)) == artifact["size"]
        assert not list((two.home).glob("artifacts/*/*")), "bytes must live in the store"
    finally:
        stop(one)
        stop(two)


async def test_a_cancel_on_one_server_stops_a_run_owned_by_another(
    tmp_path: Path, store_url: str
) -> None:
    one, two = serve(tmp_path, store_url, "one"), serve(tmp_path, store_url, "two")
    try:
        async with Client(one.url) as owner, Client(two.url) as other:
            for force in (False, True):
                # long enough that the cancel always comes mid-run on a loaded machine (12 waits
                # of 200 ms finished first once, at load 8.5); a graceful cancel lets the waits
                # in flight (2 s) end
                run_id = await submit(owner, ms=2000 if not force else 5000, items=12)
                await until(other, run_id, "running")
                asked = time.monotonic()
                cancel = await call(other, "cancel_task_run", runId=run_id, force=force)
                assert cancel["cancelRequested"] is True
                run = await until(other, run_id, "canceled", "failed", "succeeded", seconds=30)
                took = time.monotonic() - asked
                assert run["status"] == "canceled", run
                print(f"cross-server cancel (force={force}): {took * 1000:.0f} ms")
                # the target: 1 s forced (LISTEN/NOTIFY), a page's time (2 s) cooperative; with slack
                assert took < (2 if force else 10), took
    finally:
        stop(one)
        stop(two)


async def test_a_killed_server_leaves_runs_to_the_others(tmp_path: Path, store_url: str) -> None:
    """The doomed server runs on another host name (its own UTS namespace), so the survivors
    cannot look its process up: only its heartbeats, which stop, tell them it died."""
    doomed = serve(
        tmp_path,
        store_url,
        "doomed",
        1,
        "unshare",
        "--uts",
        "sh",
        "-c",
        'hostname far; exec "$@"',
        "-",
    )
    survivor = serve(tmp_path, store_url, "survivor", 1)
    try:
        async with Client(doomed.url) as client:
            running = await submit(client, ms=3000, items=12)
            await until(client, running, "running")
            queued = await submit(client, ms=20, items=12)  # waits: one run at a time on the store
            assert (await call(client, "get_task_run", runId=queued))["status"] == "queued"
        os.kill(doomed.process.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        end(doomed.process, doomed.log)
        async with Client(survivor.url) as client:
            resumed = await until(client, running, "succeeded", "failed", seconds=90)
            found = time.monotonic() - killed_at
            assert resumed["status"] == "succeeded", resumed  # resumed there (#55)
            assert [i["n"] for i in resumed["result"]["items"]] == list(range(1, 13)), resumed
            adopted = await until(client, queued, "succeeded", "failed", seconds=60)
            assert adopted["status"] == "succeeded", adopted
        async with open_store(tmp_path, store_url) as store:
            row = await store.run(queued)
            assert row is not None and row.owner is not None
            assert row.owner.startswith(f"{os.uname().nodename}:{survivor.process.pid}:")
            moved = (await store.run(running)).options["resumes"]  # type: ignore[union-attr]
            assert len(moved) == 1 and moved[0]["by"] == row.owner, moved
        print(f"dead server's run finished after {found:.1f} s (heartbeats stale after 10 s)")
    finally:
        stop(doomed)
        stop(survivor)
    assert not alive(doomed.process.pid)


async def test_the_queue_limit_and_its_order_hold_across_servers(
    tmp_path: Path, store_url: str
) -> None:
    servers = [serve(tmp_path, store_url, name, 2) for name in ("a", "b", "c")]
    try:
        async with (
            Client(servers[0].url) as a,
            Client(servers[1].url) as b,
            Client(servers[2].url) as c,
        ):
            run_ids = []
            for client in (a, b, c, a, b, c):
                run_ids.append(await submit(client, ms=100, items=8))
            for run_id in run_ids:
                assert (await until(c, run_id, "succeeded", "failed"))["status"] == "succeeded"
        async with open_store(tmp_path, store_url) as store:
            rows = [row for run_id in run_ids if (row := await store.run(run_id)) is not None]
        spans = [(row.started_at or 0.0, row.ended_at or 0.0) for row in rows]
        most = max(sum(1 for s, e in spans if s <= start < e) for start, _ in spans)
        assert most <= 2, "more runs ran at once than maxConcurrentRuns on the whole store"
        started = [start for start, _ in spans]
        assert started == sorted(started), "the runs started out of their order of arrival"
        assert {row.owner.split(":")[1] for row in rows if row.owner} == {
            str(s.process.pid) for s in servers
        }  # each ran where it was submitted
    finally:
        for served in servers:
            stop(served)


def test_a_bad_store_url_stops_the_server_with_a_clear_error(tmp_path: Path) -> None:
    from tests.server.conftest import DSL, env_for

    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        [DSL, "serve", "--transport", "http", "--store", "mysql://root@localhost/db"],
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "postgresql://" in done.stderr and "Traceback" not in done.stderr
