"""Providers that are real MCP servers: mcp-server-time (stdio) and server-everything (stdio
and streamable HTTP) as actions in runs: typed results, traces, failures that stay contained,
restarts, timeouts and shutdown, checked by the children's pids."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.contract import TrustLevel
from taskplate.interpreter import RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from tests.fixtures.processes import end
from tests.providers.conftest import (
    EVERYTHING,
    NOW,
    alive,
    children,
    everything_on,
    free_port,
    time_config,
    toml_list,
    write_folder,
)

pytestmark = pytest.mark.anyio


def template(tid: str, action: str, args: str, trust: str = "[local]", extra: str = "") -> str:
    return (
        f"template: {tid}\nversion: 1.0.0\nname: {tid}\ntrust: {trust}\n"
        f"steps:\n  - id: call\n    action: {action}\n    with: {args}\n{extra}"
        "output:\n  answer: ${{ steps.call }}\n"
    )


@asynccontextmanager
async def running(folder: Path, home: Path) -> AsyncIterator[RunManager]:
    library = TemplateLibrary(REGISTRY).load([folder])
    manager = RunManager(home, library)
    async with manager.running():
        yield manager


async def run(
    manager: RunManager, tid: str, inputs: dict[str, Any] | None = None, **kw: Any
) -> dict[str, Any]:
    run_id = await manager.submit(tid, inputs or {}, **kw)
    with anyio.fail_after(120):
        await manager.wait(run_id)
    return await manager.describe(run_id, include_steps=True)


def pids_of(word: str) -> set[int]:
    found = set()
    for pid in children():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if word in cmdline:
            found.add(pid)
    return found


async def test_a_tool_is_a_step_with_its_typed_result_and_a_trace(tmp_path: Path) -> None:
    with_set = NOW.replace(
        "output:",
        '  - id: echo\n    action: set\n    with: {at: "${{ steps.now.datetime }}"}\noutput:',
    )
    folder = write_folder(tmp_path / "t", time_config(), {"what_time": with_set})
    library = TemplateLibrary(REGISTRY).load([folder])
    assert "no providers.lock.json" in library.rejected[str(folder / "what_time.yaml")][0].message
    async with running(folder, tmp_path / "home") as manager:
        assert manager.library.rejected == {}  # checked again against the live listing
        answer = await run(manager, "what_time", {"zone": "Europe/Paris"})
        level, providers = manager.library.needs(manager.library.get("what_time"))
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["datetime"].startswith("20") and answer["result"]["dst"] is False
    traced = [(s["action"], s["provider"], s["capabilityLevel"]) for s in answer["steps"]]
    assert traced == [("mcp.time.get_current_time", "time", "L0"), ("set", "builtin", "L0")]
    assert (level, providers) == ("L0", ["time"])


async def test_an_error_result_fails_the_step_with_the_providers_message(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "t", time_config(), {"what_time": NOW})
    async with running(folder, tmp_path / "home") as manager:
        answer = await run(manager, "what_time", {"zone": "Nowhere/Atlantis"})
    assert answer["status"] == "failed"
    assert answer["error"]["details"]["stepErrorCode"] == "PROVIDER_ERROR"
    assert "Nowhere/Atlantis" in answer["error"]["error"]
    assert answer["steps"][0]["error"]["code"] == "PROVIDER_ERROR"


async def test_server_everything_over_streamable_http(tmp_path: Path, everything_http: str) -> None:
    config = f'[providers.everything]\nurl = "{everything_http}"\n'
    config += 'levels = {"toggle-simulated-logging" = "L1"}\n'
    folder = write_folder(
        tmp_path / "t",
        config,
        {
            "echo": template("echo", "mcp.everything.echo", "{message: hello}", "[local, remote]"),
            "weather": template(
                "weather",
                "mcp.everything.get-structured-content",
                "{location: Chicago}",
                extra='  - action: set\n    with: {t: "${{ steps.call.temperature + 1 }}"}\n',
            ),
            "toggle": template(
                "toggle", "mcp.everything.toggle-simulated-logging", "{}", "[local, remote]"
            ),
        },
    )
    async with running(folder, tmp_path / "home") as manager:
        assert manager.library.rejected == {}
        echo = await run(manager, "echo", trust=TrustLevel.REMOTE)
        weather = await run(manager, "weather")
        refused = await run(manager, "toggle", trust=TrustLevel.REMOTE)
        allowed = await run(manager, "toggle")
    assert echo["status"] == "succeeded" and echo["result"]["answer"]["text"] == "Echo: hello"
    assert weather["status"] == "succeeded", weather
    assert set(weather["result"]["answer"]) >= {"temperature", "conditions", "humidity"}
    assert refused["status"] == "failed"
    assert refused["error"]["details"]["stepErrorCode"] == "CONFIRMATION_REQUIRED"
    assert [s["capabilityLevel"] for s in refused["steps"]] == ["L1"]
    assert allowed["status"] == "succeeded"


async def test_server_everything_over_stdio_and_a_call_past_the_step_timeout(
    tmp_path: Path,
) -> None:
    config = f"[providers.everything]\ncommand = {toml_list([EVERYTHING, 'stdio'])}\n"
    folder = write_folder(
        tmp_path / "t",
        config,
        {
            "sum": template("sum", "mcp.everything.get-sum", "{a: 1, b: 2}"),
            "slow": template(
                "slow", "mcp.everything.trigger-long-running-operation", "{duration: 60, steps: 60}"
            ).replace("    with:", "    timeoutMs: 1500\n    with:"),
        },
    )
    async with running(folder, tmp_path / "home") as manager:
        timed_out = await run(manager, "slow")
        after = await run(manager, "sum")
    assert timed_out["status"] == "failed"
    assert timed_out["error"]["details"]["stepErrorCode"] == "PROVIDER_TIMEOUT"
    assert "1500 ms" in timed_out["error"]["error"]
    assert after["status"] == "succeeded" and "3" in after["result"]["answer"]["text"]


async def test_a_crashed_provider_fails_the_call_and_is_restarted_for_the_next_run(
    tmp_path: Path,
) -> None:
    folder = write_folder(tmp_path / "t", time_config(), {"what_time": NOW})
    async with running(folder, tmp_path / "home") as manager:
        assert (await run(manager, "what_time"))["status"] == "succeeded"
        [pid] = pids_of("mcp-server-time")
        os.kill(pid, signal.SIGKILL)
        crashed = await run(manager, "what_time")
        assert crashed["status"] == "failed", crashed
        assert crashed["error"]["details"]["stepErrorCode"] == "PROVIDER_UNAVAILABLE"
        assert manager.library.providers is not None
        with anyio.fail_after(60):
            while manager.library.providers.connections["time"].state != "up":
                await anyio.sleep(0.1)
        again = await run(manager, "what_time")
        assert again["status"] == "succeeded", again
        [new_pid] = pids_of("mcp-server-time")
        assert new_pid != pid


async def test_shutdown_ends_every_stdio_provider_and_its_children(tmp_path: Path) -> None:
    config = (
        time_config() + f"[providers.everything]\ncommand = {toml_list([EVERYTHING, 'stdio'])}\n"
    )
    folder = write_folder(
        tmp_path / "t",
        config,
        {"what_time": NOW, "sum": template("sum", "mcp.everything.get-sum", "{a: 1, b: 2}")},
    )
    before = children()
    async with running(folder, tmp_path / "home") as manager:
        assert (await run(manager, "sum"))["status"] == "succeeded"
        started = children() - before
        assert pids_of("mcp-server-time") and pids_of("mcp-server-everything")
    assert started and not [p for p in started if alive(p)]


async def test_a_provider_that_fails_to_start_leaves_only_its_tools_absent(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = toml_list(
        [sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"]
    )
    silent = toml_list([sys.executable, "-c", "import time; time.sleep(120)"])
    config = (
        time_config()
        + f"[providers.broken]\ncommand = {broken}\n"
        + f"[providers.silent]\ncommand = {silent}\nstart_timeout_ms = 1500\n"
        + f'[providers.nohttp]\nurl = "http://127.0.0.1:{free_port()}/mcp"\nstart_timeout_ms = 10000\n'
        + '[providers.notoken]\nurl = "http://127.0.0.1:1/mcp"\ntoken_env = "NO_SUCH_TOKEN_17"\n'
    )
    folder = write_folder(
        tmp_path / "t",
        config,
        {
            "what_time": NOW,
            "uses_broken": template("uses_broken", "mcp.broken.anything", "{}"),
            "uses_silent": template("uses_silent", "mcp.silent.anything", "{}"),
            "uses_nohttp": template("uses_nohttp", "mcp.nohttp.anything", "{}"),
            "uses_notoken": template("uses_notoken", "mcp.notoken.anything", "{}"),
        },
    )
    before = children()
    async with running(folder, tmp_path / "home") as manager:
        providers = manager.library.providers
        assert providers is not None
        failures = providers.failures()
        assert set(failures) == {"broken", "silent", "nohttp", "notoken"}
        assert "within 1500 ms" in failures["silent"]
        assert "$NO_SUCH_TOKEN_17 is not set" in failures["notoken"]
        assert failures["nohttp"]
        assert (await run(manager, "what_time"))["status"] == "succeeded"
        rejected = {Path(k).stem: v for k, v in manager.library.rejected.items()}
        assert set(rejected) == {"uses_broken", "uses_silent", "uses_nohttp", "uses_notoken"}
        assert "provider broken is not running" in rejected["uses_broken"][0].message
    logged = caplog.text
    assert "provider broken failed to start" in logged and "provider silent" in logged
    assert not [p for p in children() - before if alive(p)]


async def _listening(port: int) -> None:
    with anyio.fail_after(60):
        while True:
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
                await stream.aclose()
                return
            except OSError:
                await anyio.sleep(0.1)


async def test_an_http_provider_that_goes_away_is_unavailable_then_connected_again(
    tmp_path: Path,
) -> None:
    port = free_port()
    server = everything_on(port, tmp_path / "server.log")
    try:
        await _listening(port)
        folder = write_folder(
            tmp_path / "t",
            f'[providers.everything]\nurl = "http://127.0.0.1:{port}/mcp"\n',
            {"echo": template("echo", "mcp.everything.echo", "{message: again}")},
        )
        async with running(folder, tmp_path / "home") as manager:
            assert (await run(manager, "echo"))["status"] == "succeeded"
            end(server)
            gone = await run(manager, "echo")
            assert gone["error"]["details"]["stepErrorCode"] == "PROVIDER_UNAVAILABLE", gone
            server = everything_on(port, tmp_path / "server.log")
            await _listening(port)
            providers = manager.library.providers
            assert providers is not None
            with anyio.fail_after(90):
                while True:
                    answer = await run(manager, "echo")
                    if answer["status"] == "succeeded":
                        break
                    await anyio.sleep(0.5)
            assert answer["result"]["answer"]["text"] == "Echo: again"
    finally:
        end(server)


async def test_a_lone_surrogate_in_a_providers_answer_is_read_as_valid_text(
    tmp_path: Path,
) -> None:
    """The SDK cannot read a message whose JSON escapes a lone surrogate; it would be dropped
    and the call time out. It is read again with the surrogate replaced (#28)."""
    server = str(Path(__file__).parent / "surrogate_server.py")
    config = f"[providers.hostile]\ncommand = {toml_list([sys.executable, server])}\n"
    folder = write_folder(
        tmp_path / "t", config, {"hostile": template("hostile", "mcp.hostile.echo", "{}")}
    )
    async with running(folder, tmp_path / "home") as manager:
        answer = await run(manager, "hostile", options={"timeoutMs": 20_000})
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["answer"] == {"text": "A\ufffdB"}
