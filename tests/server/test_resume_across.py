"""Servers on one PostgreSQL store (#55): the server running a run is SIGKILLed mid-run and
exactly one of the others adopts it (one conditional UPDATE wins), resuming it under the same
id from its checkpoints: every item once in its result, the finished ones not read again."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest
from mcp.client.client import Client

from taskplate.interpreter import open_store
from tests.fixtures.postgres import alive
from tests.fixtures.server import FixtureServer
from tests.interpreter.test_resume import asked, ended, gated, start, until_waiting
from tests.server.conftest import end, stop
from tests.server.test_scale_out import serve, store_url

pytestmark = pytest.mark.anyio
__all__ = ["store_url"]  # the fixture, used by name


async def test_exactly_one_surviving_server_adopts_a_killed_servers_run(
    tmp_path: Path, store_url: str, site: FixtureServer
) -> None:
    servers = [serve(tmp_path, store_url, name, 4) for name in ("a", "b", "c")]
    doomed, *survivors = servers
    pages = [f"pg{i}" for i in range(8)]
    site.open_gate(pages[0])
    try:
        async with Client(doomed.url) as client:
            run_id = await start(
                client, "batch_extract_pages", urls=gated(site, pages), engine="http", concurrency=1
            )
            await until_waiting(site, "pg1", "pg2", "pg3")
        async with open_store(tmp_path, store_url) as store:
            with anyio.fail_after(60):
                while "item:pages:0" not in {c["key"] for c in await store.checkpoints(run_id)}:
                    await anyio.sleep(0.05)
            os.kill(doomed.process.pid, signal.SIGKILL)
            end(doomed.process, doomed.log)
            for name in pages:
                site.open_gate(name)
            async with Client(survivors[0].url) as client:
                done = await ended(client, run_id)
            row = await store.run(run_id)
    finally:
        for served in servers:
            stop(served)
    assert not alive(doomed.process.pid)
    assert done["status"] == "succeeded", done
    assert [i["url"] for i in done["result"]["items"]] == gated(site, pages)
    assert asked(site, "pg0") == 1
    assert row is not None
    resumes = row.options["resumes"]
    assert len(resumes) == 1, resumes  # exactly one server adopted it
    pids = {str(s.process.pid) for s in survivors}
    assert resumes[0]["by"].split(":")[1] in pids and row.owner == resumes[0]["by"], resumes
