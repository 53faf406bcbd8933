"""The whole chain through the SDK's client, over stdio (a `dsl serve` subprocess) and over
streamable HTTP on 127.0.0.1: list → run sync → run async → poll → artifacts in chunks."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp.client.client import Client

from taskplate.server._schemas import ERROR
from tests.conftest import login_inputs
from tests.fixtures.server import FixtureServer
from tests.server.conftest import Served, start_http, stop

pytestmark = pytest.mark.anyio


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None, result
    if result.is_error:  # every outputSchema admits exactly this error object
        jsonschema.validate(result.structured_content, ERROR)
    return {"isError": bool(result.is_error), **result.structured_content}


def inputs_for(site: FixtureServer) -> dict[str, dict[str, Any]]:
    return {
        "batch_extract_pages": {
            "urls": [site.url("/article.html"), site.url("/recipe.html")],
            "waitFor": 1,
        },
        "login_keep_session": login_inputs(site, profileId="mcp"),
        "multi_tab_compare": {
            "urls": [site.url("/article.html"), site.url("/recipe.html")],
            "fields": {"title": "h1"},
        },
        "crawl_site": {"startUrl": site.url("/article.html"), "maxDepth": 0, "engine": "http"},
        "map_site": {"url": site.url("/article.html"), "maxPages": 1},
    }


async def read_artifact(client: Client, artifact_id: str, home: Path, run_id: str) -> None:
    parts, offset = [], 0
    while True:
        chunk = await call(
            client, "get_artifact", artifactId=artifact_id, offset=offset, limit=4096
        )
        assert not chunk["isError"], chunk
        parts.append(base64.b64decode(chunk["data"]))
        offset += chunk["bytesReturned"]
        if chunk["complete"]:
            break
    assert b"".join(parts) == (home / "artifacts" / run_id / artifact_id).read_bytes()


async def chain(client: Client, site: FixtureServer, home: Path) -> None:
    listed = await call(client, "list_task_templates")
    ids = {t["templateId"] for t in listed["templates"]}
    assert {
        "batch_extract_pages",
        "crawl_site",
        "login_keep_session",
        "map_site",
        "multi_tab_compare",
    } <= ids
    for template_id, inputs in inputs_for(site).items():
        sync = await call(
            client,
            "run_task_template",
            templateId=template_id,
            inputs=inputs,
            options={"mode": "sync"},
        )
        assert sync["status"] == "succeeded", sync
        queued = await call(
            client,
            "run_task_template",
            templateId=template_id,
            inputs=inputs,
            options={"mode": "async"},
        )
        assert queued["status"] == "queued" and queued["runId"].startswith("run_")
        with anyio.fail_after(60):
            while True:
                run = await call(client, "get_task_run", runId=queued["runId"])
                if run["status"] not in ("queued", "running"):
                    break
                await anyio.sleep(0.3)
        assert run["status"] == "succeeded", run
        assert run["artifacts"], template_id
        for artifact in run["artifacts"]:
            await read_artifact(client, artifact["artifactId"], home, run["runId"])


async def test_the_whole_chain_over_stdio(stdio: Any, site: FixtureServer, home: Path) -> None:
    async with Client(stdio) as client:
        await chain(client, site, home)


async def test_the_whole_chain_over_streamable_http(
    local_http: Served, site: FixtureServer
) -> None:
    async with Client(local_http.url) as client:
        profile = await call(client, "get_runtime_profile")
        assert profile["trustLevel"] == "local" and profile["limits"]["maxTabsPerSession"] == 20
        await chain(client, site, local_http.home)


async def answer(stream: anyio.abc.ByteStream) -> bytes:
    """One HTTP/1.1 answer read from the stream: its head (the body, of Content-Length, is read)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += await stream.receive()
    head, body = data.split(b"\r\n\r\n", 1)
    length = next(
        int(line.split(b":")[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    while len(body) < length:
        body += await stream.receive()
    return head


async def test_an_idle_connection_stays_open_for_the_proxy_in_front_to_reuse(
    local_http: Served,
) -> None:
    """A load balancer sends its next request over a connection that was idle: the server must
    not close it first (a request sent as it closes is lost: taskplate.server.KEEP_ALIVE_S). Idle past uvicorn's
    5 s default, the connection is open and its next request answered."""
    port = int(local_http.url.split(":")[2].split("/")[0])
    request = f"GET /ui/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(request)
        assert (await answer(stream)).startswith(b"HTTP/1.1 200")
        with anyio.move_on_after(6):  # the idle time itself, no wait for a condition
            try:
                unasked = await stream.receive()
            except anyio.EndOfStream:
                pytest.fail("the server closed a connection idle for less than 6 s")
            pytest.fail(f"the server sent something unasked: {unasked!r}")
        await stream.send(request)
        with anyio.fail_after(30):
            assert (await answer(stream)).startswith(b"HTTP/1.1 200")


async def test_progress_notifications_during_a_sync_run(stdio: Any, site: FixtureServer) -> None:
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    urls = [site.url(f"/slow?ms=400&n={i}") for i in range(4)]
    async with Client(stdio) as client:
        result = await client.call_tool(
            "run_task_template",
            {
                "templateId": "batch_extract_pages",
                "inputs": {"urls": urls, "waitFor": 1, "concurrency": 1},
                "options": {"mode": "sync"},
            },
            progress_callback=on_progress,
        )
    assert result.structured_content and result.structured_content["status"] == "succeeded"
    with anyio.fail_after(5):  # the client may handle the last notification after the answer
        while not seen or seen[-1] != (4, 4):
            await anyio.sleep(0.02)
    assert len(seen) >= 3
    items = [progress for progress, total in seen if total == 4]
    assert items == sorted(items)  # it only goes forward


async def test_remote_callers_are_refused_what_they_may_not_do(
    remote_http: Served, stdio: Any, site: FixtureServer
) -> None:
    async with Client(remote_http.url) as client:
        assert (await call(client, "get_runtime_profile"))["trustLevel"] == "remote"
        session = await call(client, "create_session")
        for url in (
            site.url("/article.html"),
            "http://169.254.169.254/latest/meta-data/",
            "http://10.0.0.1/",
            "file:///etc/passwd",
        ):
            refused = await call(client, "navigate", sessionId=session["sessionId"], url=url)
            assert (
                refused["isError"]
                and refused["errorCode"] == "URL_NOT_ALLOWED"
                and refused["recoverHint"]
            ), url
        evaluate = await call(client, "evaluate", sessionId=session["sessionId"], script="1")
        assert evaluate["errorCode"] == "TRUST_LEVEL_NOT_ALLOWED"
        upload = await call(
            client,
            "run_steps",
            steps=[
                {"action": "upload_file", "with": {"selector": "input", "files": ["/etc/passwd"]}}
            ],
        )
        assert upload["errorCode"] == "TRUST_LEVEL_NOT_ALLOWED"
        local_only = await call(client, "run_task_template", templateId="local_only", inputs={})
        assert (
            local_only["errorCode"] == "TRUST_LEVEL_NOT_ALLOWED" and "local" in local_only["error"]
        )
        scrape = await call(client, "scrape", url="http://127.0.0.1:1/")
        assert scrape["errorCode"] == "URL_NOT_ALLOWED"
    async with Client(stdio) as client:  # the same things work for a local caller
        session = await call(client, "create_session")
        opened = await call(
            client, "navigate", sessionId=session["sessionId"], url=site.url("/article.html")
        )
        assert opened["status"] == 200
        assert (
            await call(client, "evaluate", sessionId=session["sessionId"], script="document.title")
        )["value"] == "Tuning the sliding window"
        ran = await call(client, "run_task_template", templateId="local_only", inputs={})
        assert ran["status"] == "succeeded"
        upload = await call(
            client,
            "run_steps",
            steps=[
                {"action": "navigate", "with": {"url": site.url("/form.html")}},
                {"action": "upload_file", "with": {"selector": "#file", "files": [__file__]}},
            ],
        )
        assert upload["status"] == "succeeded", upload


async def test_two_clients_and_two_servers_share_runs_and_cancel_across_processes(
    local_http: Served, site: FixtureServer
) -> None:
    other = start_http(local_http.home, "--trust", "local")  # a second process on the same home
    try:
        slow = {
            "urls": [site.url(f"/slow?ms=2000&n={i}") for i in range(6)],
            "concurrency": 1,
            "waitFor": 1,
        }
        async with (
            Client(local_http.url) as first,
            Client(local_http.url) as second,
            Client(other.url) as third,
        ):
            a = await call(
                first,
                "run_task_template",
                templateId="batch_extract_pages",
                inputs=slow,
                options={"mode": "async"},
            )
            b = await call(
                second, "run_task_template", templateId="flow", inputs={}, options={"mode": "async"}
            )
            for client in (first, second, third):
                listed = await call(client, "list_task_runs", limit=100)
                assert {a["runId"], b["runId"]} <= {r["runId"] for r in listed["runs"]}
            with anyio.fail_after(30):
                while (await call(third, "get_task_run", runId=a["runId"]))["status"] != "running":
                    await anyio.sleep(0.2)
            cancel = await call(
                third, "cancel_task_run", runId=a["runId"]
            )  # sent to the other process
            assert cancel["cancelRequested"] is True
            with anyio.fail_after(30):
                while (run := await call(first, "get_task_run", runId=a["runId"]))[
                    "status"
                ] == "running":
                    await anyio.sleep(0.2)
            assert run["status"] == "canceled"
    finally:
        stop(other)


async def test_operators_can_allow_and_deny_hosts(home: Path, site: FixtureServer) -> None:
    served = start_http(home, "--allow-host", "127.0.0.1", "--deny-host", "*.blocked.test")
    try:
        async with Client(served.url) as client:
            session = (await call(client, "create_session"))["sessionId"]
            opened = await call(
                client, "navigate", sessionId=session, url=site.url("/article.html")
            )
            assert opened["status"] == 200  # remote, but the operator allowed this host
            for url in ("http://169.254.169.254/", "https://www.blocked.test/"):
                assert (await call(client, "navigate", sessionId=session, url=url))[
                    "errorCode"
                ] == "URL_NOT_ALLOWED"
    finally:
        stop(served)
