"""Traces and failure screenshots of runs in the real Chromium: Playwright's trace.zip kept by
the trace mode, secrets masked in it, a PNG of every failed browser step named in its record."""

from __future__ import annotations

import io
import json
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import anyio
import playwright
import pytest
from playwright.async_api import expect

from taskplate.browser import BrowserRuntime
from taskplate.browser import _contexts as _session
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.interpreter import RunManager
from taskplate.interpreter._tracing import TraceMode, masked_zip, merged_zip, trace_mode
from tests.fixtures.server import PASSWORD, FixtureServer
from tests.fixtures.static_site import static_site

pytestmark = pytest.mark.anyio
VIEWER = Path(playwright.__file__).parent / "driver" / "package" / "lib" / "vite" / "traceViewer"
WRONG = "wrong horse battery"


async def finished(manager: RunManager, template: str, inputs: dict[str, Any], **kw: Any) -> dict:
    run_id = await manager.submit(template, inputs, **kw)
    with anyio.fail_after(60):
        await manager.wait(run_id)
    return await manager.describe(run_id, include_steps=True)


async def artifact(manager: RunManager, answer: dict, name: str) -> bytes | None:
    found = [a for a in answer["artifacts"] if a["name"] == name]
    if not found:
        return None
    return (await manager.artifacts.read(found[0]["artifactId"])).data


def entries(trace: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(trace)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


async def test_a_failed_run_keeps_a_playwright_trace_without_the_password(
    manager: RunManager, site: FixtureServer
) -> None:
    answer = await finished(
        manager, "traced_login", {"loginUrl": site.url("/login"), "password": WRONG}
    )
    assert answer["status"] == "failed"
    trace = await artifact(manager, answer, "trace.zip")
    assert trace is not None, answer["artifacts"]
    files = entries(trace)
    assert "trace.trace" in files and "trace.network" in files
    everything = b"".join(files.values())
    assert b'"method":"fill"' in everything or b"fill" in files["trace.trace"]
    for form in (WRONG, quote_plus(WRONG), WRONG.replace(" ", "%20")):
        assert form.encode() not in everything, f"{form!r} is in the trace"
    assert b"***" in everything


def events(trace: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in entries(trace)["trace.trace"].splitlines()]


def page_actions(recorded: list[dict[str, Any]]) -> dict[str, str]:
    """The trace's actions by call id: what the run did to its pages (navigate, fill, click, the
    failed wait, the failure screenshot), and never the runtime's own reads (where a navigation
    landed, whether a field is a password: browser/_untraced.py)."""
    actions = {e["callId"]: e["method"] for e in recorded if e["type"] == "before"}
    called = list(actions.values())
    assert called.count("goto") == 1 and called.count("fill") == 2 and called.count("click") == 1
    assert "waitForSelector" in called  # the failed step's wait, and its error
    assert "screenshot" in called  # the failure screenshot, with the page at that moment
    assert "evaluateExpression" not in called, called  # the runtime's own reads
    failed = [e for e in recorded if e["type"] == "after" and e.get("error")]
    assert [actions[e["callId"]] for e in failed] == ["waitForSelector"]
    return actions


async def test_on_failure_keeps_the_page_actions_and_console_without_dom_snapshots(
    manager: RunManager, site: FixtureServer
) -> None:
    """on-failure records every run for the few that fail, so only what costs a batch nothing
    it can see: the actions with their errors and the console (docs/runs.md); Playwright
    records the network only with DOM snapshots, which `on` adds."""
    answer = await finished(
        manager, "traced_login", {"loginUrl": site.url("/login"), "password": WRONG}
    )
    trace = await artifact(manager, answer, "trace.zip")
    assert answer["status"] == "failed" and trace is not None
    page_actions(recorded := events(trace))
    assert not [e for e in recorded if e["type"] in ("frame-snapshot", "screencast-frame")]
    assert not any(name.endswith(".jpeg") for name in entries(trace))


async def test_trace_on_shows_each_page_action_with_dom_snapshots(
    manager: RunManager, site: FixtureServer
) -> None:
    """`on` adds the page before and after each action and the network; a secret typed into the
    page is masked in both."""
    answer = await finished(
        manager,
        "traced_login",
        {"loginUrl": site.url("/login"), "password": WRONG},
        options={"trace": "on"},
    )
    trace = await artifact(manager, answer, "trace.zip")
    assert answer["status"] == "failed" and trace is not None
    recorded = events(trace)
    actions = page_actions(recorded)
    snapshots: dict[str, set[str]] = {}
    for e in recorded:
        if e["type"] == "frame-snapshot":
            snapshots.setdefault(e["snapshot"]["callId"], set()).add(e["snapshot"]["phase"])
    for call_id, method in actions.items():
        if method in ("goto", "fill", "click", "screenshot"):
            assert "before" in snapshots.get(call_id, set()), f"{method}: no snapshot before it"
    filled = [c for c, m in actions.items() if m == "fill"]
    assert all("after" in snapshots[c] for c in filled)  # the page with the typed value
    files = entries(trace)
    assert b"/login" in files["trace.network"]  # the form was posted and recorded
    everything = b"".join(files.values())
    for form in (WRONG, quote_plus(WRONG), WRONG.replace(" ", "%20")):
        assert form.encode() not in everything, f"{form!r} is in the trace"


async def test_the_failed_step_names_a_screenshot_of_its_page(
    manager: RunManager, site: FixtureServer
) -> None:
    answer = await finished(
        manager, "traced_login", {"loginUrl": site.url("/login"), "password": WRONG}
    )
    failed = [s for s in answer["steps"] if s["status"] == "failed"]
    assert [s["stepId"] for s in failed] == ["signed_in"]
    shot_id = failed[0]["screenshotArtifactId"]
    assert failed[0]["tabId"].startswith("tab_")
    chunk = await manager.artifacts.read(shot_id)
    assert chunk.meta["mime_type"] == "image/png" and chunk.data.startswith(b"\x89PNG")
    assert shot_id in {a["artifactId"] for a in answer["artifacts"]}
    assert all("screenshotArtifactId" not in s for s in answer["steps"] if s["status"] != "failed")


async def test_trace_on_keeps_a_successful_run_and_masks_the_right_password(
    manager: RunManager, site: FixtureServer
) -> None:
    inputs = {"loginUrl": site.url("/login"), "password": PASSWORD}
    answer = await finished(manager, "traced_login", inputs, options={"trace": "on"})
    assert answer["status"] == "succeeded"
    trace = await artifact(manager, answer, "trace.zip")
    assert trace is not None
    files = entries(trace)
    assert any(name.endswith(".jpeg") for name in files), "no screencast film strip"
    everything = b"".join(files.values())
    assert PASSWORD.encode() not in everything and quote_plus(PASSWORD).encode() not in everything


async def test_no_trace_when_off_or_when_on_failure_succeeds(
    manager: RunManager, site: FixtureServer
) -> None:
    inputs = {"loginUrl": site.url("/login"), "password": PASSWORD}
    quiet = await finished(manager, "traced_login", inputs)  # local: on-failure by default
    assert quiet["status"] == "succeeded" and quiet["artifacts"] == []
    off = await finished(
        manager,
        "traced_login",
        {**inputs, "password": WRONG},
        options={"trace": "off"},
    )
    assert off["status"] == "failed"
    assert [a["name"] for a in off["artifacts"]] == ["failure-signed_in.png"]


async def test_a_trace_goes_on_in_each_context_a_long_loop_retires_to(
    manager: RunManager, site: FixtureServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A session retires its context every CONTEXT_RETIRES_AFTER loop pages: the run's trace
    follows it, and trace.zip holds every context, as the Trace Viewer reads several (each
    `<name>.trace` with its `<name>.network`). The parts set aside meanwhile are gone after."""
    monkeypatch.setattr(_session, "CONTEXT_RETIRES_AFTER", 2)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    urls = [site.url(f"/article.html?n={i}") for i in range(5)]
    answer = await finished(manager, "recycled", {"urls": urls}, options={"trace": "on"})
    assert answer["status"] == "succeeded", answer.get("error")
    trace = await artifact(manager, answer, "trace.zip")
    assert trace is not None
    files = entries(trace)
    contexts = sorted(name.removesuffix(".trace") for name in files if name.endswith(".trace"))
    assert contexts == ["0-trace", "1-trace", "2-trace"]  # pages 1-2, 3-4 and 5
    assert all(f"{name}.network" in files for name in contexts)
    for url in urls:  # every page's navigation, in whichever context it ran
        assert any(url.encode() in files[f"{name}.trace"] for name in contexts), url
    assert list(tmp_path.glob("taskplate-trace-*")) == []

    quiet = await finished(manager, "recycled", {"urls": urls})  # on-failure, and it succeeds
    assert quiet["status"] == "succeeded" and quiet["artifacts"] == []
    assert list(tmp_path.glob("taskplate-trace-*")) == []


def test_merging_renames_each_context_and_stores_shared_resources_once() -> None:
    def part(marker: bytes) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            archive.writestr("trace.trace", marker)
            archive.writestr("trace.network", marker + b" network")
            archive.writestr("resources/shared.png", b"same")
        return out.getvalue()

    assert merged_zip([part(b"only")]) == part(b"only")
    files = entries(merged_zip([part(b"first"), part(b"second")]))
    assert files == {
        "0-trace.trace": b"first",
        "0-trace.network": b"first network",
        "resources/shared.png": b"same",
        "1-trace.trace": b"second",
        "1-trace.network": b"second network",
    }


async def test_playwrights_trace_viewer_shows_every_context_of_a_merged_trace(
    runtime: BrowserRuntime, tmp_path: Path
) -> None:
    """From the outside: the Trace Viewer the playwright package ships, in Chromium, lists the
    actions of each of three contexts merged into one trace.zip."""
    browser = await runtime.browser()
    parts = []
    for n in range(3):
        context = await browser.new_context()
        await context.tracing.start(snapshots=True)
        page = await context.new_page()
        await page.set_content(f"<h1>page of context {n}</h1>")
        await page.click("h1")
        await context.tracing.stop(path=tmp_path / f"{n}.zip")
        parts.append((tmp_path / f"{n}.zip").read_bytes())
        await context.close()
    site = tmp_path / "viewer"
    shutil.copytree(VIEWER, site)
    (site / "trace.zip").write_bytes(merged_zip(parts))
    context = await browser.new_context()
    try:
        page = await context.new_page()
        with static_site(site) as base:
            await page.goto(f"{base}/index.html?trace={base}/trace.zip")
            clicks = page.locator(".action-title", has_text="Click")
            await expect(clicks).to_have_count(3, timeout=30_000)
    finally:
        await context.close()


async def test_every_failed_item_gets_its_screenshot_before_its_tab_is_recycled(
    manager: RunManager, site: FixtureServer
) -> None:
    urls = [site.url(p) for p in ("/article.html", "/frame.html", "/recipe.html", "/sparse.html")]
    answer = await finished(manager, "failing_items", {"urls": urls}, options={"trace": "off"})
    assert answer["status"] == "partial_success"
    failed = [s for s in answer["steps"] if s["status"] == "failed"]
    assert sorted(s["itemIndex"] for s in failed) == [1, 3]
    for step in failed:
        assert (await manager.artifacts.read(step["screenshotArtifactId"])).data.startswith(
            b"\x89PNG"
        )
    assert {s["tabId"] for s in answer["steps"]} <= {"tab_1", "tab_2"}  # the window's two tabs


async def test_an_item_failing_a_check_gets_a_screenshot_of_its_page(
    manager: RunManager, site: FixtureServer
) -> None:
    """batch_extract_pages' `assert` after an HTTP 500 needs no browser, yet its item's tab
    still shows the error page: the failed step names a screenshot of it."""
    urls = [site.url("/status/500"), site.url("/article.html")]
    answer = await finished(
        manager,
        "batch_extract_pages",
        {"urls": urls, "concurrency": 1},
        options={"trace": "off"},
    )
    assert answer["status"] == "partial_success"
    failed = [s for s in answer["steps"] if s["status"] == "failed"]
    assert [(s["action"], s["itemIndex"]) for s in failed] == [("assert", 0)]
    assert "HTTP 500" in failed[0]["error"]["message"]
    shot = await manager.artifacts.read(failed[0]["screenshotArtifactId"])
    assert shot.data.startswith(b"\x89PNG") and shot.meta["name"] == "failure-assert-0.png"


async def test_a_run_without_a_browser_takes_no_screenshot(manager: RunManager) -> None:
    answer = await finished(manager, "tolerated", {})
    failed = [s for s in answer["steps"] if s["status"] == "failed"]
    assert [s["stepId"] for s in failed] == ["broken"]
    assert "screenshotArtifactId" not in failed[0] and answer["artifacts"] == []
    assert manager.sessions.open_tabs == 0


async def test_a_bad_trace_option_is_refused_and_nothing_is_queued(manager: RunManager) -> None:
    with pytest.raises(TaskplateError) as caught:
        await manager.submit("flow", {"n": 1}, options={"trace": "always"})
    assert caught.value.code is ErrorCode.INVALID_PARAMETER
    assert "off, on-failure or on" in caught.value.message and caught.value.recover_hint
    assert (await manager.list())["total"] == 0 and manager.live == {}


def test_the_default_mode_follows_the_caller_and_the_server() -> None:
    assert trace_mode(None, TrustLevel.LOCAL) is TraceMode.ON_FAILURE
    assert trace_mode(None, TrustLevel.REMOTE) is TraceMode.OFF
    assert trace_mode(None, TrustLevel.REMOTE, TraceMode.ON) is TraceMode.ON
    assert trace_mode("off", TrustLevel.LOCAL, TraceMode.ON) is TraceMode.OFF


def test_masking_reaches_every_entry_and_every_encoding() -> None:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("trace.trace", '{"value":"p\\"w d"}')
        archive.writestr("resources/abc", "password=p%22w+d&x=1")
    masked = entries(masked_zip(raw.getvalue(), ['p"w d']))
    assert masked == {"trace.trace": b'{"value":"***"}', "resources/abc": b"password=***&x=1"}
