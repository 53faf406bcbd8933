"""Two `dsl serve --browser-endpoints` processes on one pool of two real Playwright servers:
runs of both spread over the pool, `dsl doctor` sees the load while they run, and each server
leaves no load report behind that counts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client

from tests.browser.pool import MARKER, browser_servers, launch_headers, wait_gone
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL, env_for, start_http, stop
from tests.server.test_transports import call

pytestmark = pytest.mark.anyio


async def test_two_servers_spread_their_runs_over_one_browser_pool(
    tmp_path: Path, site: FixtureServer
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with browser_servers("ws", "ws") as pool:
        urls = " ".join(s.url for s in pool)
        (options,) = launch_headers(site.server_address[1])
        env = {"TASKPLATE_BROWSER_HEADERS": json.dumps(dict([options]))}
        flags = ("--trust", "local", "--browser-endpoints", urls)
        servers = [start_http(home, *flags, env=env) for _ in range(2)]
        try:
            slow = {
                "urls": [site.url(f"/slow?ms=1500&n={i}") for i in range(10)],
                "concurrency": 2,
                "waitFor": 1,
                # every page in a browser tab: engine auto would read these static pages over
                # HTTP after the first two, and the pool's load would show only for moments
                "engine": "browser",
            }
            async with Client(servers[0].url) as first, Client(servers[1].url) as second:
                runs = [
                    (
                        client,
                        await call(
                            client,
                            "run_task_template",
                            templateId="batch_extract_pages",
                            inputs=slow,
                            options={"mode": "async"},
                        ),
                    )
                    for client in (first, second, first, second)
                ]
                # while they run, `dsl doctor` sees every session in the pool's load
                doctor_env = {**env_for(home), **env, "TASKPLATE_BROWSER_ENDPOINTS": urls}
                with anyio.fail_after(60):
                    while True:
                        report = subprocess.run(
                            [DSL, "doctor"], env=doctor_env, capture_output=True, text=True
                        )
                        loads = [
                            int(line.split("; ")[-1].split()[0])
                            for line in report.stdout.splitlines()
                            if line.startswith("ok   browser endpoint")
                        ]
                        if len(loads) == 2 and min(loads) >= 1 and sum(loads) <= 4:
                            break
                        await anyio.sleep(0.5)
                for client, run in runs:
                    with anyio.fail_after(120):
                        while (done := await call(client, "get_task_run", runId=run["runId"]))[
                            "status"
                        ] in ("queued", "running"):
                            await anyio.sleep(0.3)
                    assert done["status"] == "succeeded", done
        finally:
            for served in servers:
                stop(served)
        # a server ended by SIGTERM may leave its load report (uvicorn re-raises the signal):
        # doctor ignores it once it is old, and the next server on this host removes it
        left = list((home / "browsers").glob("*.json"))
        assert len(left) <= 2
        if left:
            from taskplate.browser._endpoints import write_report

            write_report(home / "browsers" / "next.json", [])
            assert [p.name for p in (home / "browsers").glob("*.json")] == ["next.json"]
    assert wait_gone(MARKER) == []
