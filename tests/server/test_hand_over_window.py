"""A hand-over for a local caller on a machine with a display: a headed window of the session
(real Chromium on a real X server, Xvfb), acted in by the test, copied back into the session."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

from taskplate.contract import TrustLevel
from taskplate.interpreter import RunManager
from taskplate.interpreter._human import RunDesk
from tests.fixtures.server import FixtureServer
from tests.server.test_human import TEMPLATES, call, client, finished, hand_over, waiting

pytestmark = pytest.mark.anyio


def processes(marker: str) -> list[int]:
    """Live processes whose command line carries `marker`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if marker.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def drivers() -> int:
    """Playwright drivers this test process started (the runtime's, a window's)."""
    count = 0
    for proc in Path("/proc").iterdir():
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == os.getpid() and b"run-driver" in (proc / "cmdline").read_bytes():
                count += 1
        except (OSError, ValueError, IndexError):
            continue
    return count


async def gone(marker: str) -> list[int]:
    """The processes still there after they had a fair while to end (none, we hope)."""
    for _ in range(100):
        if not processes(marker):
            return []
        await anyio.sleep(0.1)
    return processes(marker)


@pytest.fixture
def display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A real X server on a free display number, set as DISPLAY; killed afterwards."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.fail(
            "Xvfb is missing: install Debian's xvfb package (apt-get install xvfb, or make bootstrap)"
        )
    number = next(
        n
        for n in range(91, 400)
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists()
    )
    server = subprocess.Popen(
        [xvfb, f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):  # the socket appears once it accepts clients
            if Path(f"/tmp/.X11-unix/X{number}").exists() or server.poll() is not None:
                break
            time.sleep(0.1)
        assert server.poll() is None, f"Xvfb :{number} did not start"
        monkeypatch.setenv("DISPLAY", f":{number}")
        monkeypatch.delenv("TASKPLATE_HAND_OVER_WINDOW", raising=False)
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(30)
    assert server.returncode is not None


@pytest.fixture
def folders() -> tuple[Path, ...]:
    return (TEMPLATES,)


async def test_a_local_person_logs_in_in_the_window_and_the_session_sees_it(
    server: MCPServer, manager: RunManager, site: FixtureServer, display: str
) -> None:
    url = site.url("/human-login.html")
    async with client(server) as c:
        started = await call(
            c,
            "run_task_template",
            templateId="handed_over_login",
            inputs={"url": url},
            options={"mode": "async"},
        )
        run_id = started["runId"]
        paused = await waiting(c, run_id)
        assert paused["status"] == "waiting_for_human", paused
        assert paused["waitingFor"]["window"] is True
        desk = manager.live[run_id].execution.human
        window = desk.window
        assert window is not None and window.page.url == url
        assert processes(window.marker), "no headed Chromium runs"
        with_window = drivers()
        await window.page.fill("#name", "Ada")  # the person, in the window
        await window.page.click("#go")
        answer = await finished(c, run_id)
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["resumedBy"] == "condition"
    # The session's tab is on the window's last page, with its cookie and localStorage.
    assert answer["result"]["url"] == site.url("/human-login.html?done=1")
    assert answer["result"]["title"] == "Logged in: cookie Ada, storage Ada"
    assert desk.window is None
    assert await gone(window.marker) == []
    assert drivers() == with_window - 1  # the window's Playwright driver ended too


async def test_resume_copies_the_window_back_too(
    server: MCPServer, manager: RunManager, site: FixtureServer, display: str
) -> None:
    url = site.url("/human-login.html")
    async with client(server) as c:
        started = await call(
            c,
            "run_task_template",
            templateId="handed_over_login",
            inputs={"url": url},
            options={"mode": "async"},
        )
        run_id = started["runId"]
        await waiting(c, run_id)
        window = manager.live[run_id].execution.human.window
        assert window is not None
        await window.page.evaluate("document.cookie = 'who=Grace; path=/'")
        await window.page.evaluate("localStorage.setItem('who', 'Grace')")
        await window.page.goto(site.url("/human-login.html?done=2"))
        await call(c, "resume_task_run", runId=run_id)
        answer = await finished(c, run_id)
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["resumedBy"] == "resumed"
    assert answer["result"]["url"] == site.url("/human-login.html?done=2")
    assert answer["result"]["title"] == "Logged in: cookie Grace, storage Grace"
    assert await gone(window.marker) == []


async def test_canceling_a_run_closes_its_window(
    server: MCPServer, manager: RunManager, site: FixtureServer, display: str
) -> None:
    async with client(server) as c:
        run_id = await hand_over(c, site, "window-canceled")
        paused = await waiting(c, run_id)
        assert paused["waitingFor"]["window"] is True
        window = manager.live[run_id].execution.human.window
        assert window is not None and processes(window.marker)
        await call(c, "cancel_task_run", runId=run_id)
        answer = await finished(c, run_id)
    site.open_gate("window-canceled")
    assert answer["status"] == "canceled", answer
    assert await gone(window.marker) == []
    with anyio.fail_after(
        30
    ):  # the run is canceled in the store first, then lets go of its session
        await manager.wait(run_id)
    assert manager.sessions.sessions == {}


async def test_a_display_nobody_serves_falls_back_to_the_url_and_screenshot(
    server: MCPServer, manager: RunManager, site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    free = next(n for n in range(400, 900) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    monkeypatch.setenv("DISPLAY", f":{free}")  # set, but no X server answers there
    monkeypatch.delenv("TASKPLATE_HAND_OVER_WINDOW", raising=False)
    async with client(server) as c:
        run_id = await hand_over(c, site, "dead-display")
        paused = await waiting(c, run_id)
        assert paused["waitingFor"]["window"] is False, paused
        assert paused["waitingFor"]["windowError"]  # why there is no window
        assert paused["waitingFor"]["screenshotArtifactId"]
        site.open_gate("dead-display")
        answer = await finished(c, run_id)
    assert answer["status"] == "succeeded", answer
    assert await gone("--taskplate-hand-over=") == []  # the failed launch left nothing


async def test_a_remote_caller_never_gets_a_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DISPLAY", ":12345")
    desk = RunDesk(None, "run_x", TrustLevel.REMOTE, None, lambda: False, lambda: None)  # type: ignore[arg-type]
    await desk._open_window(object())  # never touched: a remote caller's person is not here
    assert desk.window is None and desk.window_error is None


async def test_a_timed_out_hand_over_closes_its_window(
    server: MCPServer, manager: RunManager, site: FixtureServer, display: str
) -> None:
    async with client(server) as c:
        run_id = await hand_over(c, site, "window-timeout", timeoutMs=8000)
        await waiting(c, run_id)
        window = manager.live[run_id].execution.human.window
        assert window is not None
        answer = await finished(c, run_id)
    site.open_gate("window-timeout")
    assert answer["error"]["details"]["stepErrorCode"] == "HUMAN_TIMEOUT", answer
    assert await gone(window.marker) == []


@pytest.mark.parametrize("how", ["no display", "turned off"])
async def test_without_a_window_the_url_and_screenshot_tell(
    server: MCPServer,
    manager: RunManager,
    site: FixtureServer,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    if how == "no display":
        monkeypatch.delenv("DISPLAY", raising=False)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    else:
        monkeypatch.setenv("DISPLAY", ":12345")  # never reached: the setting wins
        monkeypatch.setenv("TASKPLATE_HAND_OVER_WINDOW", "0")
    gate = f"no-window-{how.replace(' ', '-')}"
    async with client(server) as c:
        run_id = await hand_over(c, site, gate)
        paused = await waiting(c, run_id)
        assert paused["waitingFor"]["window"] is False
        assert paused["waitingFor"]["screenshotArtifactId"]
        assert manager.live[run_id].execution.human.window is None
        site.open_gate(gate)
        answer = await finished(c, run_id)
    assert answer["status"] == "succeeded", answer
