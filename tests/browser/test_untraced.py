"""The runtime's own page calls stay out of Playwright's trace (browser/_untraced.py).

`untraced` relies on private parts of Playwright's Python client; these tests fail loudly when
a Playwright upgrade changes them, before traces quietly grow slow again."""

from __future__ import annotations

import io
import json
import zipfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.browser import BrowserRuntime, _untraced, untraced
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

TRACED = "() => 'traced:' + document.title"
QUIET = "() => 'quiet:' + document.title"


def events(trace: Path) -> list[dict[str, Any]]:
    with zipfile.ZipFile(io.BytesIO(trace.read_bytes())) as archive:
        return [json.loads(line) for line in archive.read("trace.trace").splitlines()]


def actions(trace: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The trace's actions by call id ("before" events)."""
    return {e["callId"]: e for e in trace if e["type"] == "before"}


def test_the_playwright_parts_it_relies_on_are_there() -> None:
    assert _untraced.zone_parts() is not None, (
        "playwright._impl's ApiZone/current_zone are gone: browser/_untraced.py needs a new hook"
    )
    installed = version("playwright")
    assert installed.startswith(_untraced.PLAYWRIGHT + "."), (
        f"Playwright {installed}: check browser/_untraced.py's hook against it "
        f"(written for {_untraced.PLAYWRIGHT}) and update PLAYWRIGHT"
    )


async def test_untraced_calls_run_but_leave_no_action_and_no_snapshot(
    runtime: BrowserRuntime, site: FixtureServer, tmp_path: Path
) -> None:
    browser = await runtime.browser()
    context = await browser.new_context()
    try:
        await context.tracing.start(screenshots=True, snapshots=True)
        page = await context.new_page()
        await page.goto(site.url("/article.html"))
        assert (await untraced(lambda: page.evaluate(QUIET))).startswith("quiet:")
        assert (await page.evaluate(TRACED)).startswith("traced:")  # traced again after it
        with pytest.raises(Exception) as failed:  # an error comes out as Playwright raised it
            await untraced(lambda: page.evaluate("() => { throw new Error('boom') }"))
        assert "boom" in str(failed.value)
        await context.tracing.stop(path=tmp_path / "trace.zip")
    finally:
        await context.close()
    trace = events(tmp_path / "trace.zip")
    called = actions(trace)
    expressions = [a["params"].get("expression", "") for a in called.values()]
    assert [a["method"] for a in called.values()].count("goto") == 1
    assert TRACED in expressions, "a plain call is traced"
    assert not [x for x in expressions if "quiet:" in x or "boom" in x], expressions
    snapshotted = {e["snapshot"]["callId"] for e in trace if e["type"] == "frame-snapshot"}
    assert snapshotted and snapshotted <= set(called), "a snapshot of a call that is no action"


async def test_only_the_task_that_asks_is_untraced(
    runtime: BrowserRuntime, site: FixtureServer, tmp_path: Path
) -> None:
    """The zone is the calling task's: a tab read quietly meanwhile hides no other tab's call."""
    browser = await runtime.browser()
    context = await browser.new_context()
    try:
        await context.tracing.start(snapshots=True)
        quiet, loud = await context.new_page(), await context.new_page()
        await quiet.goto(site.url("/article.html"))
        await loud.goto(site.url("/recipe.html"))

        async def reads_quietly() -> None:
            for _ in range(5):
                await untraced(lambda: quiet.evaluate(QUIET))
                await anyio.sleep(0)

        async def acts() -> None:
            for _ in range(5):
                await loud.evaluate(TRACED)
                await anyio.sleep(0)

        async with anyio.create_task_group() as tg:
            tg.start_soon(reads_quietly)
            tg.start_soon(acts)
        await context.tracing.stop(path=tmp_path / "trace.zip")
    finally:
        await context.close()
    expressions = [
        a["params"].get("expression") for a in actions(events(tmp_path / "trace.zip")).values()
    ]
    assert expressions.count(TRACED) == 5 and QUIET not in expressions
