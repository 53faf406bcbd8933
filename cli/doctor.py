"""`dsl doctor`: checks what taskplate needs (Chromium, the data home, the templates) and
says what to fix. Changes nothing.
"""

from __future__ import annotations

import sys
from importlib.metadata import version

import anyio
import click

from taskplate.browser import BrowserConfig, BrowserRuntime, find_chromium
from taskplate.dsl import TaskplateError
from taskplate.interpreter import data_home

from ._common import library
from ._doctor_providers import providers_report


async def _browser_version() -> str:
    runtime = BrowserRuntime()
    try:
        await runtime.browser()
        return runtime.version
    finally:
        await runtime.close()


@click.command("doctor")
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
        endpoint = BrowserConfig.from_env().endpoint
        if endpoint:
            line(True, f"remote browser at {endpoint} (TASKPLATE_BROWSER_ENDPOINT)")
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
