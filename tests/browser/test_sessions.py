"""Sessions, tabs and the browser process: caps, dialogs, popups, crashes and relaunch."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright._impl._driver import compute_driver_executable, get_driver_env
from playwright.async_api import Error as PlaywrightError

from taskplate.browser import (
    MAX_TABS_PER_PROCESS,
    MAX_TABS_PER_SESSION,
    BrowserConfig,
    BrowserRuntime,
    Sessions,
    _runtime,
    find_chromium,
)
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib._context import ActionContext
from tests.conftest import act
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


def browser_pids(runtime: BrowserRuntime) -> list[int]:
    """Processes of this runtime's Chromium (its launch carries a unique marker argument)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if runtime.marker.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def kill_browser(runtime: BrowserRuntime) -> None:
    pids = browser_pids(runtime)
    assert pids, "no Chromium process found"
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


async def test_a_session_holds_at_most_20_tabs(sessions: Sessions) -> None:
    session = await sessions.create()
    for _ in range(MAX_TABS_PER_SESSION):
        await session.new_tab()
    with pytest.raises(TaskplateError, match="20 tabs open") as caught:
        await session.new_tab()
    assert (
        caught.value.code is ErrorCode.INVALID_PARAMETER
        and "close_tab" in caught.value.recover_hint
    )
    assert sessions.open_tabs == MAX_TABS_PER_SESSION
    await sessions.close(session.id)
    assert sessions.open_tabs == 0


async def test_the_process_holds_at_most_50_tabs(sessions: Sessions) -> None:
    created = [await sessions.create() for _ in range(3)]
    for session in created:
        for _ in range(min(MAX_TABS_PER_SESSION, MAX_TABS_PER_PROCESS - sessions.open_tabs)):
            await session.new_tab()
    assert sessions.open_tabs == MAX_TABS_PER_PROCESS
    with pytest.raises(TaskplateError, match="50 tabs are open in this process"):
        await created[2].new_tab()


async def test_unknown_session_is_session_not_found(sessions: Sessions) -> None:
    with pytest.raises(TaskplateError) as caught:
        sessions.get("ses_nope")
    assert caught.value.code is ErrorCode.SESSION_NOT_FOUND


async def test_a_missing_session_says_whether_it_was_closed_here_or_is_held_by_another_process(
    sessions: Sessions,
) -> None:
    """A session lives in the memory of the process that opened it; its id names that process
    (a mark of its own), so another server behind a load balancer tells it apart from one closed."""
    elsewhere = Sessions(sessions.runtime)  # another server's: no browser opened
    closed = await sessions.create()
    await sessions.close(closed.id)
    foreign = f"ses_{elsewhere.mark}_{'0' * 32}"
    causes = {}
    for sid in ("ses_nope", closed.id, foreign):
        with pytest.raises(TaskplateError) as caught:
            sessions.get(sid)
        assert caught.value.code is ErrorCode.SESSION_NOT_FOUND
        assert caught.value.details["sessionId"] == sid
        causes[sid] = (caught.value.details["cause"], caught.value.message)
    assert causes["ses_nope"] == ("unknown", "no session ses_nope")
    assert causes[closed.id] == ("closed", f"no session {closed.id} on this server: it was closed")
    assert causes[foreign][0] == "another_server" and "held by another server" in causes[foreign][1]
    assert closed.id.startswith(f"ses_{sessions.mark}_") and sessions.mark != elsewhere.mark


async def test_sessions_do_not_share_cookies(sessions: Sessions, site: FixtureServer) -> None:
    from tests.fixtures.server import PASSWORD, USER

    first = ActionContext(session=await sessions.create())
    await act("navigate", first, url=site.url("/login"))
    await act("fill", first, selector="input[name=username]", value=USER)
    await act("fill", first, selector="input[name=password]", value=PASSWORD)
    await act("click", first, selector="button[type=submit]")
    await act("wait_for", first, selector="#welcome")
    second = ActionContext(session=await sessions.create())
    await act("navigate", second, url=site.url("/members"))
    assert (await act("get_page_info", second))["title"] == "Sign in"


async def test_a_session_keeps_its_login_and_storage_across_a_context_retirement(
    sessions: Sessions, site: FixtureServer
) -> None:
    session = await sessions.create()
    session.retire_after = 2
    first = await session.new_tab()
    await first.page.goto(site.url("/auto-login"))  # a cookie session, and localStorage
    await first.page.evaluate("() => localStorage.setItem('kept', 'yes')")
    old = session.context
    for _ in range(3):
        await session.count_page()
    assert session.retirements == 1 and session.context is not old
    assert old is not None and len(old.pages) == 1  # the page still running in it goes on
    second = await session.new_tab()
    assert second.page.context is session.context
    await second.page.goto(site.url("/members"))
    assert await second.page.locator("#welcome").count() == 1  # still signed in
    assert await second.page.evaluate("() => localStorage.getItem('kept')") == "yes"
    # The page in the retired context still works, and what it sets now is not lost:
    await first.page.goto(site.url("/members"))
    await first.page.evaluate("() => { document.cookie = 'late=1; path=/'; }")
    await session.close_tab(first.id)  # its last tab: the retired context closes
    assert old not in (session.context.browser.contexts if session.context.browser else [])
    cookies = {c["name"] for c in await session.context.cookies()}
    assert {"sid", "late"} <= cookies


async def test_two_tabs_closing_at_once_close_each_retired_context_once(
    sessions: Sessions,
) -> None:
    """A watcher setting a retired context aside (a run's trace being written) keeps one call of
    close_drained waiting; another call meanwhile takes the next retired context. The first
    then skips it rather than taking it again (it raised ValueError in CI)."""
    session = await sessions.create()
    session.retire_after = 1
    closing: list[Any] = []
    first_closing, both_closing = anyio.Event(), anyio.Event()

    class SettingAside:
        async def context_retired(self, old: Any, new: Any) -> None:
            pass

        async def context_closing(self, old: Any) -> None:
            closing.append(old)
            first_closing.set()
            if len(closing) == 2:
                both_closing.set()
            with anyio.fail_after(10):
                await both_closing.wait()

    session.context_watchers.append(SettingAside())
    tabs, contexts = [], []
    for pages in (2, 1):  # two retired contexts, each still showing one tab
        tabs.append(await session.new_tab())
        contexts.append(session.context)
        for _ in range(pages):  # a context serves one page, then the next one retires it
            await session.count_page()
    assert session.retirements == 2 and closing == []
    async with anyio.create_task_group() as tg:
        tg.start_soon(session.close_tab, tabs[0].id)
        with anyio.fail_after(10):
            await first_closing.wait()  # the first call is setting its context aside
        await session.close_tab(tabs[1].id)  # the second takes the next one meanwhile
    assert closing == contexts
    browser = session.context.browser if session.context is not None else None
    assert browser is not None and not any(c in browser.contexts for c in contexts)


async def test_dialogs_are_dismissed_and_recorded(ctx: ActionContext, site: FixtureServer) -> None:
    await act("navigate", ctx, url=site.url("/dialogs.html"))
    await act("click", ctx, selector="#confirm")
    assert (await act("extract", ctx, fields={"a": "#after"}))["values"]["a"] == "dismissed"
    tab = await ctx.tab()
    assert {"type": "alert", "message": "Loaded alert"} in tab.dialogs
    assert {"type": "confirm", "message": "Sure?"} in tab.dialogs


async def test_popups_become_tabs_of_the_session(ctx: ActionContext, site: FixtureServer) -> None:
    assert ctx.session is not None
    await act("navigate", ctx, url=site.url("/popup.html"))
    await act("click", ctx, selector="#open")
    with anyio.fail_after(5):
        while len(ctx.session.tabs) < 2:
            await anyio.sleep(0.05)
    popup = next(t for t in ctx.session.tabs.values() if t.id != ctx.session.main_tab)
    await popup.page.wait_for_load_state()
    assert popup.page.url == site.url("/article.html")


async def test_windows_a_page_opens_by_itself_are_closed_and_never_counted(
    ctx: ActionContext, site: FixtureServer
) -> None:
    assert ctx.session is not None
    await act("navigate", ctx, url=site.url("/popup-ads.html"))  # opens two windows itself
    await act("wait_for_stable", ctx)
    assert list(ctx.session.tabs) == [ctx.session.main_tab]
    assert ctx.session.registry.open_tabs == 1
    context = ctx.session.context
    assert context is not None
    with anyio.fail_after(5):
        while len(context.pages) > 1:  # one may be closing
            await anyio.sleep(0.05)
    await act("click", ctx, selector="#open")  # a window the user asked for is still a tab
    with anyio.fail_after(5):
        while len(ctx.session.tabs) < 2:
            await anyio.sleep(0.05)


async def test_without_a_popup_blocker_windows_opened_by_the_page_are_closed(
    site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A remote browser may run with popups allowed: the session closes them itself.
    monkeypatch.setattr(_runtime, "KEEP_POPUP_BLOCKER", [])
    runtime = BrowserRuntime()
    registry = Sessions(runtime)
    try:
        session = await registry.create()
        ctx = ActionContext(session=session)
        await act("navigate", ctx, url=site.url("/popup-ads.html"))
        with anyio.fail_after(10):
            while len(session.warnings) < 2:
                await anyio.sleep(0.05)
        assert all("opened by itself" in w for w in session.warnings)
        assert list(session.tabs) == [session.main_tab] and registry.open_tabs == 1
        await act("click", ctx, selector="#open")
        with anyio.fail_after(5):
            while len(session.tabs) < 2:
                await anyio.sleep(0.05)
    finally:
        await registry.close_all()
        await runtime.close()


async def test_iframes_load_with_their_page(ctx: ActionContext, site: FixtureServer) -> None:
    await act("navigate", ctx, url=site.url("/iframe.html"))
    assert (await act("wait_for_stable", ctx, quietMs=200))["stable"] is True
    page = await ctx.page()
    inner = page.frame_locator("#inner").locator("#in-frame")
    assert await inner.inner_text() == "Text inside the frame"


async def test_a_crashed_tab_is_page_crashed(ctx: ActionContext, site: FixtureServer) -> None:
    await act("navigate", ctx, url=site.url("/article.html"))
    page = await ctx.page()
    with pytest.raises(PlaywrightError):
        await page.goto("chrome://crash")
    with pytest.raises(TaskplateError) as caught:
        await act("get_page_info", ctx)
    assert caught.value.code is ErrorCode.PAGE_CRASHED
    assert ctx.session is not None
    fresh = await act("create_tab", ctx, url=site.url("/recipe.html"))
    assert fresh["url"] == site.url("/recipe.html")


async def test_killing_chromium_fails_the_call_and_the_next_call_relaunches(
    runtime: BrowserRuntime, sessions: Sessions, site: FixtureServer
) -> None:
    ctx = ActionContext(session=await sessions.create())
    await act("navigate", ctx, url=site.url("/article.html"))
    launches = runtime.launches

    async def kill_soon() -> None:
        await anyio.sleep(0.3)
        kill_browser(runtime)

    async with anyio.create_task_group() as tg:
        tg.start_soon(kill_soon)
        with pytest.raises(TaskplateError) as caught:
            await act("navigate", ctx, url=site.url("/slow?ms=3000"))
    assert caught.value.code is ErrorCode.PAGE_CRASHED
    assert caught.value.recover_hint

    # The same session works again, on a new browser, without restarting anything.
    again = await act("navigate", ctx, url=site.url("/recipe.html"))
    assert again["title"] == "Weeknight lentil soup"
    assert runtime.launches == launches + 1
    assert ctx.session is not None and any("browser restarted" in w for w in ctx.session.warnings)
    other = ActionContext(session=await sessions.create())
    assert (await act("navigate", other, url=site.url("/article.html")))["status"] == 200


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def read_through_remote(
    process: subprocess.Popen[bytes], config: BrowserConfig, site: FixtureServer
) -> None:
    """Waits (30 s at most) for the remote browser to answer, reads a fixture page on it, then
    stops both the runtime and the process serving the browser."""
    runtime = BrowserRuntime(config)
    try:
        with anyio.fail_after(30):
            while True:
                try:
                    await runtime.browser()
                    break
                except TaskplateError:
                    await anyio.sleep(0.2)
        sessions = Sessions(runtime)
        ctx = ActionContext(session=await sessions.create())
        result = await act("navigate", ctx, url=site.url("/article.html"))
        assert result["title"] == "Tuning the sliding window"
        await sessions.close_all()
    finally:
        await runtime.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a Playwright server may not end on SIGTERM
            process.kill()
            process.wait(timeout=10)


async def test_a_remote_browser_is_used_through_its_cdp_endpoint(
    site: FixtureServer, tmp_path: Path
) -> None:
    port = free_port()
    chromium = subprocess.Popen(
        [find_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         f"--remote-debugging-port={port}", f"--user-data-dir={tmp_path}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    await read_through_remote(chromium, BrowserConfig(endpoint=f"http://127.0.0.1:{port}"), site)


async def test_a_remote_playwright_server_is_used_through_its_ws_endpoint(
    site: FixtureServer,
) -> None:
    port = free_port()
    # The driver itself, not `python -m playwright` (its node child would outlive a terminate).
    node, cli = compute_driver_executable()
    server = subprocess.Popen(
        [node, cli, "run-server", "--host", "127.0.0.1", "--port", str(port), "--unsafe"],
        env=get_driver_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    # This server has no browser of its own: the launch options name the local Chromium.
    options = {"executablePath": find_chromium(), "headless": True, "args": ["--no-sandbox"]}
    config = BrowserConfig(
        endpoint=f"ws://127.0.0.1:{port}/",
        endpoint_headers=(("x-playwright-launch-options", json.dumps(options)),),
    )
    await read_through_remote(server, config, site)


def test_the_endpoint_and_its_headers_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TASKPLATE_BROWSER_HEADERS", "[1, 2]")
    with pytest.raises(TaskplateError, match="TASKPLATE_BROWSER_HEADERS"):
        BrowserConfig.from_env()
    monkeypatch.setenv("TASKPLATE_BROWSER_HEADERS", '{"Authorization": "Bearer t"}')
    monkeypatch.setenv("TASKPLATE_BROWSER_ENDPOINT", "ws://browsers.example:3000/")
    config = BrowserRuntime().config
    assert config.endpoint == "ws://browsers.example:3000/"
    assert config.endpoint_headers == (("Authorization", "Bearer t"),)
