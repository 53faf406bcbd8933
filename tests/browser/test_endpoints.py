"""A pool of remote browsers (TASKPLATE_BROWSER_ENDPOINTS), with real `playwright run-server`
processes and a real Chromium CDP endpoint: spread, health, a killed endpoint, one down at start.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from taskplate.browser import BrowserConfig, BrowserRuntime, ProfileStore, Sessions
from taskplate.browser._endpoints import read_loads
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib._context import ActionContext
from tests.browser.pool import (
    MARKER,
    BrowserServer,
    browser_servers,
    free_port,
    launch_headers,
    wait_gone,
)
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


def pool(site: FixtureServer, *urls: str) -> BrowserRuntime:
    headers = launch_headers(site.server_address[1])
    return BrowserRuntime(BrowserConfig(endpoints=urls, endpoint_headers=headers))


@pytest.fixture
async def two(site: FixtureServer) -> AsyncIterator[tuple[list[BrowserServer], BrowserRuntime]]:
    with browser_servers("ws", "ws") as servers:
        runtime = pool(site, *(s.url for s in servers))
        try:
            yield servers, runtime
        finally:
            await runtime.close()
    assert wait_gone(MARKER) == [], "a browser of the pool was left running"


def loads(runtime: BrowserRuntime) -> dict[str, int]:
    return {row["url"]: row["sessions"] for row in runtime.status()}


# -- the list -----------------------------------------------------------------------------------
def test_endpoints_are_read_from_commas_or_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKPLATE_BROWSER_ENDPOINTS", " ws://a:3000/, ws://b:3000/\nhttp://c:9222 ")
    assert BrowserConfig.from_env().remote == ("ws://a:3000/", "ws://b:3000/", "http://c:9222")
    monkeypatch.delenv("TASKPLATE_BROWSER_ENDPOINTS")
    assert BrowserConfig.from_env().remote == ()  # unset: the local Chromium is launched
    assert BrowserRuntime(BrowserConfig()).pool == []


@pytest.mark.parametrize(
    ("listed", "says"),
    [
        ("ws://a:3000/ ftp://b:21", "'ftp://b:21' is not a browser endpoint"),
        ("browsers.internal:3000", "not a browser endpoint"),
        ("ws://", "not a browser endpoint"),
        ("ws://a:3000/, ws://a:3000/", "names an endpoint twice"),
    ],
)
def test_a_malformed_endpoint_list_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, listed: str, says: str
) -> None:
    monkeypatch.setenv("TASKPLATE_BROWSER_ENDPOINTS", listed)
    with pytest.raises(TaskplateError, match=says) as caught:
        BrowserConfig.from_env()
    assert caught.value.code is ErrorCode.INVALID_PARAMETER and caught.value.recover_hint


def test_dsl_serve_refuses_a_malformed_endpoint_before_serving(tmp_path: Path) -> None:
    from taskplate.cli.main import cli

    env = {"TASKPLATE_HOME": str(tmp_path), "TASKPLATE_BROWSER_ENDPOINTS": None}
    result = CliRunner().invoke(cli, ["serve", "--browser-endpoints", "tcp://x:1"], env=env)
    assert result.exit_code != 0
    assert "--browser-endpoints: 'tcp://x:1' is not a browser endpoint" in result.output
    assert not (tmp_path / "runs.db").exists()  # refused before anything was opened


# -- spread and load ----------------------------------------------------------------------------
async def test_sessions_are_spread_over_the_endpoints_least_loaded_first(
    two: tuple[list[BrowserServer], BrowserRuntime], site: FixtureServer
) -> None:
    servers, runtime = two
    sessions = Sessions(runtime)
    try:
        opened = [await sessions.create() for _ in range(4)]
        assert loads(runtime) == {servers[0].url: 2, servers[1].url: 2}
        assert sorted(s.endpoint or "" for s in opened) == sorted([s.url for s in servers] * 2)
        for session in opened:
            page = await act(
                "navigate", ActionContext(session=session), url=site.url("/article.html")
            )
            assert page["title"] == "Tuning the sliding window"
        await sessions.close(opened[0].id)
        await sessions.close(opened[2].id)
        # the endpoint with fewer sessions gets the next one
        lighter = min(loads(runtime), key=lambda url: loads(runtime)[url])
        assert (await sessions.create()).endpoint == lighter
    finally:
        await sessions.close_all()
    assert loads(runtime) == {servers[0].url: 0, servers[1].url: 0}
    assert sessions.open_tabs == 0


async def test_a_session_keeps_its_storage_state_across_endpoints(
    two: tuple[list[BrowserServer], BrowserRuntime], site: FixtureServer, tmp_path: Path
) -> None:
    """Profiles carry storage state (cookies, localStorage) between contexts: a login saved
    from one endpoint's browser opens in the other's."""
    _, runtime = two
    profiles = ProfileStore(tmp_path / "profiles")
    sessions = Sessions(runtime)
    try:
        first = await sessions.create(seed=profiles.read("shop").state)
        ctx = ActionContext(session=first)
        await act("navigate", ctx, url=site.url("/article.html"))
        await act(
            "evaluate",
            ctx,
            script="() => { document.cookie = 'who=ada; path=/'; localStorage.k = 'v'; }",
        )
        await profiles.publish(first, "shop")
        # `first` stays open: the next session goes to the other endpoint
        second = await sessions.create(seed=profiles.read("shop").state)
        assert second.endpoint != first.endpoint
        ctx2 = ActionContext(session=second)
        await act("navigate", ctx2, url=site.url("/article.html"))
        seen = await act("evaluate", ctx2, script="() => [document.cookie, localStorage.k]")
        assert seen["value"] == ["who=ada", "v"]
    finally:
        await sessions.close_all()


# -- failures -----------------------------------------------------------------------------------
async def test_an_endpoint_down_at_start_is_skipped(site: FixtureServer) -> None:
    dead = f"ws://127.0.0.1:{free_port()}/"  # nothing listens there
    with browser_servers("ws") as (live,):
        runtime = pool(site, dead, live.url)
        sessions = Sessions(runtime)
        try:
            opened = [await sessions.create() for _ in range(3)]
            assert {s.endpoint for s in opened} == {live.url}
            status = {row["url"]: row for row in runtime.status()}
            assert status[dead]["state"] == "down" and "could not connect" in status[dead]["error"]
            assert status[live.url] == {**status[live.url], "state": "up", "sessions": 3}
            page = await act(
                "navigate", ActionContext(session=opened[0]), url=site.url("/article.html")
            )
            assert page["status"] == 200
        finally:
            await sessions.close_all()
            await runtime.close()
    assert wait_gone(MARKER) == []


def test_dsl_doctor_lists_the_endpoints_with_health_and_load(
    site: FixtureServer, tmp_path: Path
) -> None:
    from taskplate.browser._endpoints import write_report
    from taskplate.cli.main import cli

    dead = f"ws://127.0.0.1:{free_port()}/"
    with browser_servers("ws") as (live,):
        # a serving process reports its sessions per endpoint in the data home
        rows = [{"url": live.url, "state": "up", "sessions": 2}, {"url": dead, "sessions": 0}]
        write_report(tmp_path / "browsers" / "one.json", rows)
        (options,) = launch_headers(site.server_address[1])
        env = {
            "TASKPLATE_HOME": str(tmp_path),
            "TASKPLATE_BROWSER_ENDPOINTS": f"{dead} {live.url}",
            "TASKPLATE_BROWSER_HEADERS": json.dumps(dict([options])),
        }
        result = CliRunner().invoke(cli, ["doctor"], env=env)
    lines = result.output.splitlines()
    assert "ok   2 browser endpoint(s) (TASKPLATE_BROWSER_ENDPOINTS)" in lines, result.output
    up = next(line for line in lines if live.url in line)
    assert up.startswith(f"ok   browser endpoint {live.url}: up, version "), up
    assert up.endswith("; 2 session(s) open by servers of this data home"), up
    down = next(line for line in lines if dead in line)
    assert down.startswith(f"BAD  browser endpoint {dead}: down (could not connect"), down
    assert result.exit_code == 1  # a down endpoint is a problem to fix
    assert wait_gone(MARKER) == []


async def test_no_endpoint_answering_is_browser_unavailable(site: FixtureServer) -> None:
    urls = (f"ws://127.0.0.1:{free_port()}/", f"http://127.0.0.1:{free_port()}")
    runtime = pool(site, *urls)
    sessions = Sessions(runtime)
    try:
        with pytest.raises(TaskplateError) as caught:
            await sessions.create()
    finally:
        await runtime.close()
    assert caught.value.code is ErrorCode.BROWSER_UNAVAILABLE
    assert all(url in caught.value.message for url in urls) and caught.value.recover_hint
    assert sessions.sessions == {} and sessions.open_tabs == 0


async def test_a_session_whose_endpoint_dies_before_any_work_moves_on_silently(
    two: tuple[list[BrowserServer], BrowserRuntime], site: FixtureServer
) -> None:
    servers, runtime = two
    sessions = Sessions(runtime)
    try:
        session = await sessions.create()
        doomed = next(s for s in servers if s.url == session.endpoint)
        doomed.kill()
        page = await act("navigate", ActionContext(session=session), url=site.url("/article.html"))
        assert page["title"] == "Tuning the sliding window"
        assert session.endpoint != doomed.url and session.warnings == []
        assert {row["url"]: row["state"] for row in runtime.status()}[doomed.url] == "down"
    finally:
        await sessions.close_all()


async def test_a_tab_lost_with_its_endpoint_fails_with_browser_disconnected(
    two: tuple[list[BrowserServer], BrowserRuntime], site: FixtureServer
) -> None:
    servers, runtime = two
    sessions = Sessions(runtime)
    try:
        session = await sessions.create()
        tab = await session.new_tab()
        ctx = ActionContext(session=session, tab_id=tab.id)
        await act("navigate", ctx, url=site.url("/article.html"))
        doomed = next(s for s in servers if s.url == session.endpoint)

        async def kill_soon() -> None:
            await anyio.sleep(0.3)
            doomed.kill()

        async with anyio.create_task_group() as tg:
            tg.start_soon(kill_soon)
            with pytest.raises(TaskplateError) as in_flight:
                await act("navigate", ctx, url=site.url("/slow?ms=5000"))
        assert in_flight.value.code is ErrorCode.BROWSER_DISCONNECTED, in_flight.value
        assert doomed.url in in_flight.value.message and in_flight.value.recover_hint
        with pytest.raises(TaskplateError) as later:  # the tab is gone for good
            await act("get_page_info", ctx)
        assert later.value.code is ErrorCode.BROWSER_DISCONNECTED
        # the session goes on in the other endpoint's browser, and says what happened
        fresh = ActionContext(session=session, tab_id=(await session.new_tab()).id)
        assert (await act("navigate", fresh, url=site.url("/recipe.html")))["status"] == 200
        assert session.endpoint != doomed.url
        assert any(doomed.url in w and "went away" in w for w in session.warnings)
    finally:
        await sessions.close_all()
    assert sessions.open_tabs == 0


async def test_a_killed_endpoint_is_marked_down_then_used_again_when_it_is_back(
    site: FixtureServer,
) -> None:
    with browser_servers("ws") as (steady,):
        back = BrowserServer("ws")
        runtime = pool(site, steady.url, back.url)
        try:
            await runtime.check()  # nothing listens on `back` yet
            assert [row["state"] for row in runtime.status()] == ["up", "down"]
            with back:
                with anyio.fail_after(30):  # the backoff passes; the periodic check connects
                    while runtime.status()[1]["state"] != "up":
                        await anyio.sleep(0.3)
                        await runtime.check()
                sessions = Sessions(runtime)
                try:
                    await sessions.create()  # on `steady`: both empty, `steady` first
                    assert (await sessions.create()).endpoint == back.url
                finally:
                    await sessions.close_all()
        finally:
            await runtime.close()
    assert wait_gone(MARKER) == []


async def test_a_cdp_endpoint_serves_sessions_beside_a_playwright_server(
    site: FixtureServer,
) -> None:
    with browser_servers("cdp", "ws") as (cdp, ws):
        runtime = pool(site, cdp.url, ws.url)
        sessions = Sessions(runtime)
        try:
            opened = [await sessions.create() for _ in range(2)]
            assert {s.endpoint for s in opened} == {cdp.url, ws.url}
            for session in opened:
                ctx = ActionContext(session=session, tab_id=(await session.new_tab()).id)
                assert (await act("navigate", ctx, url=site.url("/article.html")))["status"] == 200
            on_cdp = next(s for s in opened if s.endpoint == cdp.url)
            tab = next(iter(on_cdp.tabs))
            cdp.kill()
            with anyio.fail_after(20), pytest.raises(TaskplateError) as caught:
                await act("get_page_info", ActionContext(session=on_cdp, tab_id=tab))
            assert caught.value.code is ErrorCode.BROWSER_DISCONNECTED
            ctx = ActionContext(session=on_cdp, tab_id=(await on_cdp.new_tab()).id)
            assert (await act("navigate", ctx, url=site.url("/recipe.html")))["status"] == 200
            assert on_cdp.endpoint == ws.url
        finally:
            await sessions.close_all()
            await runtime.close()
    assert sessions.open_tabs == 0
    assert wait_gone(MARKER) == []


def test_load_reports_of_gone_servers_are_ignored(tmp_path: Path) -> None:
    import time

    from taskplate.browser._endpoints import write_report

    folder = tmp_path / "browsers"
    write_report(folder / "a.json", [{"url": "ws://x/", "state": "up", "sessions": 2}])
    write_report(folder / "b.json", [{"url": "ws://x/", "state": "up", "sessions": 1}])
    old = json.loads((folder / "b.json").read_text())
    (folder / "c.json").write_text(json.dumps({**old, "at": time.time() - 3600}))
    (folder / "d.json").write_text("{not json")
    assert read_loads(folder) == {"ws://x/": 3}


async def test_the_health_check_marks_a_hung_endpoint_down(
    two: tuple[list[BrowserServer], BrowserRuntime],
) -> None:
    """A browser server that stops answering (SIGSTOP) keeps its socket open: only the periodic
    check finds it, and new sessions go elsewhere."""
    import os
    import signal

    servers, runtime = two
    await runtime.check()
    assert [row["state"] for row in runtime.status()] == ["up", "up"]
    hung = servers[0]
    assert hung.process is not None
    os.kill(hung.process.pid, signal.SIGSTOP)
    try:
        with anyio.fail_after(30):
            await runtime.check()
        status = {row["url"]: row for row in runtime.status()}
        assert status[hung.url]["state"] == "down", status
        assert "health check failed" in status[hung.url]["error"]
        sessions = Sessions(runtime)
        try:
            assert {(await sessions.create()).endpoint for _ in range(2)} == {servers[1].url}
        finally:
            await sessions.close_all()
    finally:
        os.kill(hung.process.pid, signal.SIGCONT)


async def test_a_slow_check_keeps_the_sessions_running_in_a_busy_endpoint(
    two: tuple[list[BrowserServer], BrowserRuntime], site: FixtureServer
) -> None:
    """An endpoint whose host is busy answers a health check late while a session runs in it
    (stopped longer than the check's timeout, then going on): it is marked slow, not closed, so
    the session goes on once it answers; no new session goes to it meanwhile; a check answered
    in time brings it back. Only SLOW_CHECKS late checks in a row close it."""
    import os
    import signal

    from taskplate.browser._endpoints import SLOW_CHECKS

    servers, runtime = two
    await runtime.check()
    sessions = Sessions(runtime)
    try:
        running = await sessions.create()
        busy = next(s for s in servers if s.url == running.endpoint)
        other = next(s for s in servers if s is not busy)
        tab = await running.new_tab()
        assert busy.process is not None
        os.kill(busy.process.pid, signal.SIGSTOP)
        try:
            with anyio.fail_after(30):
                await runtime.check()
            status = {row["url"]: row for row in runtime.status()}
            assert status[busy.url]["state"] == "slow", status
            assert "health check failed" in status[busy.url]["error"]
            assert (await sessions.create()).endpoint == other.url
        finally:
            os.kill(busy.process.pid, signal.SIGCONT)
        with anyio.fail_after(30):
            await tab.page.goto(site.url("/"))
            await runtime.check()
        assert {row["url"]: row["state"] for row in runtime.status()}[busy.url] == "up"
        assert tab.page.url == site.url("/")
        assert SLOW_CHECKS > 1
    finally:
        await sessions.close_all()


def test_a_new_report_removes_those_of_processes_gone_from_this_host(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    from taskplate.browser._endpoints import write_report

    folder = tmp_path / "browsers"
    write_report(folder / "gone.json", [{"url": "ws://x/", "state": "up", "sessions": 1}])
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)  # fmt: skip
    report = json.loads((folder / "gone.json").read_text())
    (folder / "gone.json").write_text(json.dumps({**report, "pid": int(gone.stdout)}))
    (folder / "elsewhere.json").write_text(
        json.dumps({**report, "host": f"not-{socket.gethostname()}", "pid": int(gone.stdout)})
    )
    write_report(folder / "mine.json", [])
    assert sorted(p.name for p in folder.glob("*.json")) == ["elsewhere.json", "mine.json"]
