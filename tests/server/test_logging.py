"""MCP logging: logging/setLevel answers {} and sets what a client hears; a run's step log
arrives as notifications/message while the client waits for the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client.client import Client

from tests.fixtures.server import FixtureServer
from tests.server.conftest import Served, start_http, stop
from tests.server.test_transports import call
from tests.server.wire import MODERN, HttpWire, Wire, stdio_wire

pytestmark = pytest.mark.anyio
FLOW = {
    "name": "run_task_template",
    "arguments": {"templateId": "flow", "options": {"mode": "sync"}},
}


def logged(wire: Wire) -> list[dict[str, Any]]:
    return [n["params"] for n in wire.notes if n["method"] == "notifications/message"]


async def test_set_level_decides_what_a_client_hears_over_stdio(home: Path) -> None:
    async with stdio_wire(home, "2025-11-25") as wire:
        started = await wire.start()
        assert "logging" in started["result"]["capabilities"]
        ran = await wire.request("tools/call", FLOW)
        assert ran["result"]["structuredContent"]["status"] == "succeeded"
        quiet = logged(wire)  # the default level: the run's end, not each step
        assert [e["level"] for e in quiet] == ["notice"] and "succeeded" in quiet[0]["data"][
            "message"
        ]
        assert (await wire.request("logging/setLevel", {"level": "info"}))["result"] == {}
        wire.notes.clear()
        await wire.request("tools/call", FLOW)
        entries = logged(wire)
        steps = [e["data"] for e in entries if e["level"] == "info"]
        assert {s["step"] for s in steps} >= {"a", "b", "c"}
        assert all(e["logger"] == "taskplate.run" for e in entries)
        assert all(s["status"] in ("succeeded", "skipped") and s["ms"] >= 0 for s in steps)
        assert (await wire.request("logging/setLevel", {"level": "error"}))["result"] == {}
        wire.notes.clear()
        await wire.request("tools/call", FLOW)
        assert logged(wire) == []
        bad = await wire.request("logging/setLevel", {"level": "loud"})
        assert bad["error"]["code"] == -32602


async def test_a_failed_step_is_a_warning_and_the_run_an_error(home: Path) -> None:
    async with stdio_wire(home, "2025-06-18") as wire:
        await wire.start()
        await wire.request("logging/setLevel", {"level": "warning"})
        failed = await wire.request(
            "tools/call",
            {
                "name": "run_task_template",
                "arguments": {"templateId": "retries", "options": {"mode": "sync"}},
            },
        )
        assert failed["result"]["structuredContent"]["status"] == "failed"
        levels = [e["level"] for e in logged(wire)]
        assert "warning" in levels and levels[-1] == "error"
        assert all(e["data"].get("errorCode") for e in logged(wire) if e["level"] == "warning")


async def test_the_newest_version_logs_what_each_request_opts_in_to(remote_http: Served) -> None:
    async with httpx2.AsyncClient(timeout=60) as http:
        wire = HttpWire(http, remote_http.url, MODERN)
        await wire.start()
        await wire.request("tools/call", FLOW)
        assert logged(wire) == []  # no opt-in, no log
        await wire.request("tools/call", FLOW, **{"io.modelcontextprotocol/logLevel": "info"})
        assert {e["data"].get("step") for e in logged(wire)} >= {"a", "b", "c"}


async def test_the_server_log_has_no_line_per_page_read_over_http(
    tmp_path: Path, site: FixtureServer
) -> None:
    """httpx logs each request at INFO; a batch read over HTTP must not write a line a page."""
    home = tmp_path / "home"
    home.mkdir()
    served = start_http(home, "--trust", "local")
    try:
        async with Client(served.url) as client:
            urls = [site.url(f"/article.html?n={n}") for n in range(3)]
            inputs = {"urls": urls, "engine": "http"}
            done = await call(
                client, "run_task_template", templateId="batch_extract_pages", inputs=inputs
            )
            assert done["status"] == "succeeded", done
            assert {i["engine"] for i in done["result"]["items"]} == {"http"}
    finally:
        stop(served)
    log = Path(served.log.name).read_text()
    assert "Uvicorn running" in log or "taskplate" in log, log  # the log is the server's
    assert "HTTP Request" not in log and "article.html" not in log, log
