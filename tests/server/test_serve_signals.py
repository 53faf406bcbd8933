"""`dsl serve --transport http` stopped by SIGTERM (a service manager, `kill`): the run manager
drains (its runs' items in flight get `--drain-s`, then each unfinished run is handed over to the
other servers on the store, left `running` with no owner), closes its sessions and browsers
before the process exits, and the exit still says SIGTERM. The grace comes from `--drain-s`, else
`[serve] drainS` of taskplate.toml."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client

from taskplate.interpreter import RunStore
from tests.fixtures.processes import process_alive
from tests.fixtures.server import FixtureServer
from tests.server.conftest import start_http, stop
from tests.server.test_transports import call

pytestmark = pytest.mark.anyio


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, from /proc."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = (task / "children").read_text().split()
            except OSError:
                continue
            for kid in map(int, kids):
                if kid not in found:
                    found.add(kid)
                    todo.append(kid)
    return found


def descendants_running(pid: int, mark: bytes) -> list[int]:
    """The processes below `pid` whose command line contains `mark`."""
    found = []
    for kid in descendants(pid):
        try:
            command = Path(f"/proc/{kid}/cmdline").read_bytes()
        except OSError:
            continue
        if mark in command:
            found.append(kid)
    return found


async def test_sigterm_ends_the_runs_and_the_browser_before_the_process_exits(
    tmp_path: Path, site: FixtureServer
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "taskplate.toml").write_text("[serve]\ndrainS = 60\n", encoding="utf-8")
    served = start_http(home, "--trust", "local", "--drain-s", "0.5")  # the flag over the file
    try:
        async with Client(served.url) as client:
            started = await call(
                client,
                "run_task_template",
                templateId="batch_extract_pages",
                inputs={"urls": [site.url("/hang")], "waitFor": 1},
                options={"mode": "async"},
            )
            run_id = started["runId"]
            with anyio.fail_after(60):
                while (await call(client, "get_task_run", runId=run_id))["status"] != "running":
                    await anyio.sleep(0.1)
        with anyio.fail_after(60):  # the batch's tab is open on the page that never loads
            while not descendants_running(served.process.pid, b"chrom"):
                await anyio.sleep(0.1)  # (the conversion worker runs from the start)
        browser = descendants(served.process.pid)
        served.process.send_signal(signal.SIGTERM)
        code = served.process.wait(timeout=60)
    finally:
        stop(served)
    assert code == -signal.SIGTERM  # the signal is raised again once everything is closed
    log = next(tmp_path.glob("serve-*.log")).read_text()
    assert "stopping: ending runs, sessions and browsers" in log, log
    assert "SIGTERM: draining (up to 0.5 s for the items in flight)" in log, log
    async with RunStore(home / "runs.db") as store:
        row = await store.run(run_id)
        events = await store.events(run_id)
    # its page never loads: the grace ran out, and the run was handed over, not ended
    assert row is not None and row.status == "running" and row.owner is None, row
    assert [(e["kind"], e["graceRanOut"]) for e in events] == [("released", True)], events
    deadline = time.monotonic() + 10  # renderers may take a moment to be reaped by init
    while [p for p in browser if process_alive(p)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p for p in browser if process_alive(p)] == [], "the browser outlived its server"
