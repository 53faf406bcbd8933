"""`dsl doctor`: checks what taskplate needs (Chromium, the data home, the templates) and
says what to fix. Changes nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import anyio
import click

from taskplate.browser import BrowserConfig, BrowserRuntime, find_chromium, read_loads
from taskplate.contract import TaskplateError
from taskplate.interpreter import data_home

from .._common import library
from .._help import examples
from ._doctor_providers import providers_report


async def _endpoints_status(config: BrowserConfig) -> list[dict[str, Any]]:
    runtime = BrowserRuntime(config)
    try:
        await runtime.check()  # connects to each endpoint
        await runtime.check()  # and has each answer a round trip
        return runtime.status()
    finally:
        await runtime.close()


def endpoints_report(config: BrowserConfig, line: Callable[[bool, str], None]) -> None:
    """One line per browser endpoint: up or down, and its load (sessions the serving processes
    of this data home have open in it, from their reports)."""
    loads = read_loads(data_home() / "browsers")
    statuses = anyio.run(_endpoints_status, config)
    line(True, f"{len(statuses)} browser endpoint(s) (TASKPLATE_BROWSER_ENDPOINTS)")
    for row in statuses:
        load = f"{loads.get(row['url'], 0)} session(s) open by servers of this data home"
        if row["state"] == "up":
            line(True, f"browser endpoint {row['url']}: up, version {row['version']}; {load}")
        else:
            line(False, f"browser endpoint {row['url']}: down ({row.get('error')}); {load}")


async def _browser_version() -> str:
    runtime = BrowserRuntime()
    try:
        await runtime.browser()
        return runtime.version
    finally:
        await runtime.close()


@click.command("doctor", epilog=examples("dsl doctor", "TASKPLATE_HOME=/srv/taskplate dsl doctor"))
def command() -> None:
    """Check Chromium, the data home, versions and the templates."""
    problems = 0

    def line(ok: bool, text: str) -> None:
        nonlocal problems
        problems += not ok
        click.echo(f"{'ok ' if ok else 'BAD'}  {text}")

    line(
        True,
        f"python {sys.version.split()[0]}, taskplate {version('taskplate')}, playwright {version('playwright')}, mcp {version('mcp')}",
    )
    try:
        config = BrowserConfig.from_env()
        if config.remote:
            endpoints_report(config, line)
        else:
            line(True, f"chromium at {find_chromium(headless=True)}")
            line(True, f"browser answers: version {anyio.run(_browser_version)}")
    except TaskplateError as exc:
        line(False, f"{exc.message}; {exc.recover_hint}")
    home = data_home()
    try:
        home.mkdir(parents=True, exist_ok=True)
        probe = home / ".doctor"
        probe.write_text("ok")
        probe.unlink()
        line(True, f"data home {home} is writable")
    except OSError as exc:
        line(False, f"data home {home}: {exc}")
    lib = library()
    providers_report(lib, line)
    line(
        not lib.rejected,
        f"{len(lib.all())} templates served"
        + (f", {len(lib.rejected)} rejected: {', '.join(lib.rejected)}" if lib.rejected else ""),
    )
    sys.exit(1 if problems else 0)
