"""The runs page in a real browser: Playwright drives Chromium against `dsl ui` (and /ui of
`dsl serve`), on runs that other processes started. TASKPLATE_DOC_SHOTS=1 also writes the
screenshots docs/runs.md shows."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright.async_api import BrowserContext, Page, expect

from taskplate.browser import BrowserRuntime
from tests.fixtures.server import FixtureServer
from tests.server.conftest import (
    DSL,
    TEST_TEMPLATES,
    end,
    env_for,
    free_port,
    start_http,
    stop,
)

pytestmark = pytest.mark.anyio
DOCS = Path(__file__).parents[2] / "docs" / "img"
UI_TEMPLATES = Path(__file__).parent / "ui_templates"
TOKEN = "ui-test-token-0123456789abcdef"
SECRET = "hunter2-is-my-password"


@dataclass
class Ui:
    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Any


def start_ui(home: Path, env: dict[str, str] | None = None) -> Ui:
    port = free_port()
    log = open(home.parent / f"ui-{port}.log", "wb")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(
        [DSL, "ui", "--port", str(port)],
        env={**env_for(home), **(env or {})},
        stdout=log,
        stderr=log,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            status(port, "/static/ui.css")
            return Ui(f"http://127.0.0.1:{port}", port, process, log)
        except OSError:
            time.sleep(0.1)
    process.kill()
    process.wait()
    log.close()
    raise RuntimeError((home.parent / f"ui-{port}.log").read_text())


def stop_ui(ui: Ui) -> None:
    end(ui.process, ui.log)


def status(port: int, path: str, method: str = "GET", **headers: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def dsl_run(home: Path, template: str | Path, *inputs: str, wait: bool = True) -> Any:
    path = template if isinstance(template, Path) else TEST_TEMPLATES / f"{template}.yaml"
    command = [DSL, "run", str(path), "--json"]
    for pair in inputs:
        command += ["--input", pair]
    process = subprocess.Popen(
        command, env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    if not wait:
        return process
    out, err = process.communicate(timeout=120)
    assert out, err
    return json.loads(out)


@pytest.fixture(scope="module")
def ui_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ui") / "home"


@pytest.fixture(scope="module")
def failed_run(ui_home: Path, site: FixtureServer) -> dict[str, Any]:
    """A run another process finished: two of four items fail (their pages have no heading)."""
    urls = [site.url(p) for p in ("/article.html", "/frame.html", "/recipe.html", "/sparse.html")]
    return dsl_run(  # type: ignore[no-any-return]
        ui_home,
        "failing_items",
        f"urls={json.dumps(urls)}",
        "note=<img src=x onerror=document.title='owned'>",
    )


@pytest.fixture(scope="module")
def ui(ui_home: Path, failed_run: dict[str, Any]) -> Iterator[Ui]:
    served = start_ui(ui_home)
    yield served
    stop_ui(served)


@pytest.fixture
async def context(runtime: BrowserRuntime) -> AsyncIterator[BrowserContext]:
    browser = await runtime.browser()
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    yield context
    await context.close()


async def doc_shot(page: Page, name: str, full_page: bool = True) -> None:
    if os.environ.get("TASKPLATE_DOC_SHOTS"):
        DOCS.mkdir(exist_ok=True)
        await page.screenshot(path=str(DOCS / name), full_page=full_page)


async def test_the_list_shows_a_run_another_process_finished_and_its_page_the_failures(
    ui: Ui, failed_run: dict[str, Any], context: BrowserContext
) -> None:
    run_id = failed_run["runId"]
    page = await context.new_page()
    await page.goto(ui.url + "/")
    row = page.locator(f"tr[data-run='{run_id}']")
    await expect(row).to_contain_text("partial_success")
    await expect(row).to_contain_text("failing_items@1.0.0")
    await expect(row).to_contain_text("4 of 4 items done, 2 failed")
    await doc_shot(page, "runs-list.png")
    await row.get_by_role("link").click()
    await expect(page).to_have_url(f"{ui.url}/runs/{run_id}")
    await expect(page.locator("svg.timeline rect.step.failed")).to_have_count(2)
    await expect(page.locator("svg.timeline text.lane")).to_have_text(["tab_1", "tab_2"])
    await expect(page.locator(".failure h3")).to_have_count(2)
    shots = page.locator("img.shot")
    await expect(shots).to_have_count(2)
    for n in range(2):  # the screenshots load: real PNGs served under the page's CSP
        await expect(shots.nth(n)).to_have_js_property("complete", True)
        assert await shots.nth(n).evaluate("img => img.naturalWidth") > 100
    assert "trace.zip" in await page.locator("ul.artifacts").inner_text()
    # The inputs are shown as text: the markup in them is not markup on the page.
    assert "<img src=x onerror=" in await page.locator("pre").first.inner_text()
    assert await page.locator("main pre img").count() == 0
    assert await page.title() != "owned"
    assert await page.locator("form.cancel").count() == 0  # a finished run has no Cancel
    await doc_shot(page, "run-page.png")
    download = await context.request.get(
        ui.url + await page.locator("ul.artifacts a", has_text="trace.zip").get_attribute("href")
    )
    assert download.ok and (await download.body()).startswith(b"PK")
    assert download.headers["content-disposition"].startswith("attachment")


async def test_secret_inputs_are_masked_on_the_run_page(
    ui: Ui, ui_home: Path, site: FixtureServer, context: BrowserContext
) -> None:
    run = dsl_run(ui_home, "traced_login", f"loginUrl={site.url('/login')}", f"password={SECRET}")
    assert run["status"] == "failed"
    assert run["error"]["details"]["failedStep"] == "/steps/4"
    assert run["error"]["details"]["failedStepId"] == "signed_in"
    page = await context.new_page()
    await page.goto(f"{ui.url}/runs/{run['runId']}")
    await expect(page.locator("pre").first).to_contain_text('"password": "***"')
    await expect(page.locator("h2", has_text="Result")).to_have_text("Result: not produced")
    assert SECRET not in await page.content()
    await expect(page.locator("img.shot")).to_have_count(1)


async def test_the_list_updates_live_and_cancel_stops_a_run_of_another_process(
    ui: Ui, ui_home: Path, context: BrowserContext
) -> None:
    page = await context.new_page()
    await page.goto(ui.url + "/?status=running")
    await expect(page.locator("p.total")).to_have_text("0 runs, newest first")
    other = dsl_run(ui_home, "pause", "ms=1500", wait=False)
    try:
        row = page.locator("tr[data-run]")  # appears without a reload: the page polls
        await expect(row).to_contain_text("running", timeout=60_000)
        await row.get_by_role("link").click()
        await expect(page.locator("form.cancel")).to_be_visible()
        await page.get_by_role("button", name="Cancel run").click()
        await expect(page.locator("dl.facts .status")).to_have_text("canceled", timeout=60_000)
        await expect(page.locator("form.cancel")).to_have_count(0)
        with anyio.fail_after(60):
            while other.poll() is None:
                await anyio.sleep(0.1)
        assert other.returncode == 130
        assert json.loads(other.stdout.read())["status"] == "canceled"
    finally:
        if other.poll() is None:
            other.kill()
        other.wait()
        other.stdout.close()
        other.stderr.close()


async def test_cancel_needs_the_forms_token_and_this_origin(
    ui: Ui, failed_run: dict[str, Any], context: BrowserContext
) -> None:
    run_id = failed_run["runId"]
    action = f"{ui.url}/runs/{run_id}/cancel"
    wrong = await context.request.post(action, form={"csrf": "0" * 64}, max_redirects=0)
    assert wrong.status == 403 and "token" in await wrong.text()
    forged = await context.request.post(
        action, form={"csrf": "x"}, headers={"Origin": "http://evil.test"}, max_redirects=0
    )
    assert forged.status == 403 and "Cross-site" in await forged.text()
    assert status(ui.port, f"/runs/{run_id}", Host="evil.test") == 421
    assert status(ui.port, f"/runs/{run_id}/cancel") == 405  # GET never cancels


async def test_with_tokens_a_request_without_one_is_refused(
    ui_home: Path, failed_run: dict[str, Any], context: BrowserContext
) -> None:
    guarded = start_ui(ui_home, {"TASKPLATE_TOKENS": TOKEN})
    try:
        bare = await context.request.get(guarded.url + "/")
        assert bare.status == 401 and "token" in await bare.text()
        assert bare.headers["www-authenticate"].startswith("Bearer")
        wrong = await context.request.get(
            guarded.url + "/", headers={"Authorization": "Bearer not-the-token-at-all"}
        )
        assert wrong.status == 401
        assert status(guarded.port, f"/runs/{failed_run['runId']}") == 401
        assert status(guarded.port, "/static/ui.js") == 401
        page = await context.new_page()
        await page.goto(f"{guarded.url}/?token={TOKEN}")
        await expect(page).to_have_url(guarded.url + "/")  # the token left the address bar
        await expect(page.locator(f"tr[data-run='{failed_run['runId']}']")).to_be_visible()
        await page.goto(f"{guarded.url}/runs/{failed_run['runId']}")  # the cookie serves on
        await expect(page.locator("svg.timeline")).to_be_visible()
        headed = await context.browser.new_context(  # type: ignore[union-attr]
            extra_http_headers={"Authorization": f"Bearer {TOKEN}"}
        )
        try:
            answer = await headed.request.get(guarded.url + "/")
            assert answer.status == 200
        finally:
            await headed.close()
    finally:
        stop_ui(guarded)


async def test_dsl_serve_serves_the_same_pages_under_ui(
    ui_home: Path, failed_run: dict[str, Any], context: BrowserContext
) -> None:
    served = start_http(ui_home, env={"TASKPLATE_TOKENS": TOKEN})
    try:
        base = served.url.removesuffix("/mcp")
        port = int(base.rsplit(":", 1)[1])
        assert status(port, "/ui/") == 401
        page = await context.new_page()
        await page.goto(f"{base}/ui/?token={TOKEN}")
        link = page.locator(f"tr[data-run='{failed_run['runId']}'] a")
        assert await link.get_attribute("href") == f"/ui/runs/{failed_run['runId']}"
        await link.click()
        await expect(page.locator("img.shot")).to_have_count(2)
    finally:
        stop(served)


def test_a_non_loopback_address_is_refused_without_tokens(ui_home: Path) -> None:
    done = subprocess.run(
        [DSL, "ui", "--host", "0.0.0.0", "--port", str(free_port())],
        env=env_for(ui_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "[INVALID_PARAMETER]" in done.stderr
    assert "--token-file" in done.stderr and "Traceback" not in done.stderr


async def test_dsl_runs_trace_hands_the_trace_to_playwrights_viewer(
    ui_home: Path, failed_run: dict[str, Any], context: BrowserContext, tmp_path: Path
) -> None:
    run_id = failed_run["runId"]
    env = {k: v for k, v in env_for(ui_home).items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    target = tmp_path / "trace.zip"
    shown = subprocess.run(
        [DSL, "runs", "trace", run_id, "-o", str(target)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    command = shown.stdout.strip().split()
    assert command[1:4] == ["-m", "playwright", "show-trace"] and command[-1] == str(target)
    assert "no display here" in shown.stderr and "--port 9322" in shown.stderr
    port = free_port()
    viewer = subprocess.Popen(
        [*command[:-1], "--host", "127.0.0.1", "--port", str(port), str(target)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # the viewer's Node process goes with its group
    )
    try:
        page = await context.new_page()
        with anyio.fail_after(60):
            while True:
                try:
                    status(port, "/")
                    break
                except OSError:
                    await anyio.sleep(0.2)
        await page.goto(f"http://127.0.0.1:{port}/")
        actions = page.locator(".action-title, [class*=action-title]")
        await expect(actions.first).to_be_visible(timeout=60_000)
        titles = " ".join(await actions.all_inner_texts())
        assert re.search(r"goto|navigate", titles, re.IGNORECASE), titles
        await doc_shot(page, "trace-viewer.png")
    finally:
        os.killpg(viewer.pid, signal.SIGTERM)
        viewer.wait(timeout=15)
        assert viewer.stdout is not None
        viewer.stdout.close()
    missing = subprocess.run(
        [DSL, "runs", "trace", "run_nope"], env=env, capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 1 and "[RUN_NOT_FOUND]" in missing.stderr


def test_a_run_without_a_trace_says_how_to_get_one(ui_home: Path) -> None:
    run = dsl_run(ui_home, "flow", "n=1")  # succeeded under on-failure: no trace kept
    done = subprocess.run(
        [DSL, "runs", "trace", run["runId"]],
        env=env_for(ui_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "kept no trace" in done.stderr
    assert "--trace on" in done.stderr and "Traceback" not in done.stderr


async def test_the_run_page_shows_each_items_steps_in_order(
    ui: Ui, failed_run: dict[str, Any], context: BrowserContext
) -> None:
    page = await context.new_page()
    await page.goto(f"{ui.url}/runs/{failed_run['runId']}")
    items = page.locator("table.items tbody.item")
    await expect(items).to_have_count(4)  # a small run: nothing folded
    failed = page.locator("#item-1")
    await expect(failed.locator("tr.head")).to_contain_text("failed")
    await expect(failed.locator("tr.head")).to_contain_text("ELEMENT_NOT_FOUND")
    rows = failed.locator("tr.step")
    await expect(rows).to_have_count(2)
    cells = [await rows.nth(n).locator("td").all_inner_texts() for n in range(2)]
    assert [c[:5] for c in cells] == [
        ["1", "navigate", "navigate", "succeeded", "1"],
        ["2", "heading", "wait_for", "failed", "1"],
    ]
    assert re.fullmatch(r"\d+ ms", cells[1][5]) and "ELEMENT_NOT_FOUND" in cells[1][6]
    shot = rows.nth(1).get_by_role("link", name="screenshot")
    answer = await context.request.get(ui.url + (await shot.get_attribute("href") or ""))
    assert answer.ok and (await answer.body()).startswith(b"\x89PNG")
    await expect(page.locator("#item-0 tr.step")).to_have_count(2)
    # A bar of the timeline names its step on hover.
    bar = page.locator("svg.timeline rect.step.failed").first
    await bar.hover()
    tip = page.locator(".tip")
    await expect(tip).to_be_visible()
    await expect(tip).to_contain_text(re.compile(r"heading · item \d: wait_for failed, \d+ ms"))


async def test_an_item_failing_a_check_shows_the_page_it_had(
    ui: Ui, ui_home: Path, site: FixtureServer, context: BrowserContext
) -> None:
    urls = [site.url("/status/500"), site.url("/article.html")]
    shipped = Path(__file__).parents[2] / "templates" / "batch_extract_pages.yaml"
    run = dsl_run(ui_home, shipped, f"urls={json.dumps(urls)}", "concurrency=1")
    page = await context.new_page()
    await page.goto(f"{ui.url}/runs/{run['runId']}")
    failed = page.locator("#item-0 tr.step.failed")
    await expect(failed).to_contain_text("the page answered HTTP 500")
    await expect(failed.get_by_role("link", name="screenshot")).to_be_visible()
    shot = page.locator("img.shot")
    await expect(shot).to_have_js_property("complete", True)
    assert await shot.evaluate("img => img.naturalWidth") > 100


@pytest.fixture(scope="module")
def many_run(ui_home: Path) -> dict[str, Any]:
    """A run of 1,000 items of three data steps each; every 97th item fails its check."""
    return dsl_run(  # type: ignore[no-any-return]
        ui_home, UI_TEMPLATES / "many_items.yaml", f"items={json.dumps(list(range(1000)))}"
    )


async def test_a_thousand_item_runs_page_loads_in_under_a_second(
    ui: Ui, many_run: dict[str, Any], context: BrowserContext
) -> None:
    assert many_run["progress"]["items"] == {
        "total": 1000,
        "done": 1000,
        "succeeded": 990,
        "failed": 10,
    }
    page = await context.new_page()
    url = f"{ui.url}/runs/{many_run['runId']}"
    loads = []
    for _ in range(5):  # the best of five: the machine runs other tests meanwhile
        await page.goto(url)
        loads.append(
            await page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        )
    print(f"1,000-item run page load (ms, request to load event): {[round(x) for x in loads]}")
    assert min(loads) < 1000, loads
    await page.locator("h2", has_text="Timeline").evaluate("h => h.scrollIntoView()")
    await page.locator("svg.timeline rect.step.failed").first.hover()
    await expect(page.locator(".tip")).to_contain_text("check · item 96: assert failed")
    await doc_shot(page, "run-items.png", full_page=False)
    # The failed items are open; the others are folded, in stretches between them.
    await expect(page.locator("tbody.item.failed.open")).to_have_count(10)
    await expect(page.locator("tbody.item.failed tr.step.failed")).to_have_count(10)
    stretch = page.locator("tbody.stretch", has_text="items 0–95")
    await expect(stretch).to_contain_text("96 items")
    await stretch.locator("tr.head").click()  # the stretch opens into its items' lines
    item = page.locator("#item-7")
    await expect(item).to_have_class(re.compile("folded"))
    await expect(item.locator("tr.step")).to_have_count(0)
    await item.locator("tr.head").click()  # and an item into its steps
    await expect(item.locator("tr.step td:nth-child(2)")).to_have_text(["double", "check", "keep"])
    await item.locator("tr.head").click()
    await expect(item.locator("tr.step").first).to_be_hidden()
    # Without the script, ?item=N unfolds an item in the page.
    plain = await context.request.get(f"{url}?item=500")
    assert plain.ok
    html = await plain.text()
    assert re.search(r"<tbody class='item succeeded open' id=item-500[^>]*>.*?tr class='step", html)
    # An address naming a folded item opens it, its stretch first.
    await page.goto(f"{url}#item-300")
    await expect(page.locator("#item-300 tr.step")).to_have_count(3)
    await expect(page.locator("svg.timeline rect.step")).not_to_have_count(0)
    bars = await page.locator("svg.timeline rect.step").count()
    assert bars < 1000, bars  # steps sharing a pixel share a bar


async def test_an_item_opened_on_a_live_page_stays_open_when_it_refreshes(
    ui: Ui, ui_home: Path, context: BrowserContext
) -> None:
    other = dsl_run(ui_home, UI_TEMPLATES / "slow_items.yaml", "ms=1500", wait=False)
    try:
        page = await context.new_page()
        await page.goto(ui.url + "/?status=running")
        await page.locator("tr[data-run] a").click(timeout=60_000)
        stretch = page.locator("tbody.stretch", has_text="items 0–")  # the finished ones
        await stretch.locator("tr.head").click(timeout=60_000)
        first = page.locator("#item-0")
        await expect(first).to_have_class(re.compile("folded"))
        await first.locator("tr.head").click()
        await expect(first.locator("tr.step td:nth-child(2)")).to_have_text(["pause"])
        await page.evaluate("window.before = document.querySelector('[data-live]')")
        with anyio.fail_after(60):  # until the live part was fetched again and put in place
            while await page.evaluate("document.querySelector('[data-live]') === window.before"):
                await anyio.sleep(0.05)
        await expect(page.locator("#item-0")).to_have_class(re.compile(r"\bopen\b"))
        await expect(page.locator("#item-0 tr.step")).to_have_count(1)
        await expect(page.locator("#item-1")).to_be_visible()  # its stretch stays spread
        with anyio.fail_after(60):
            while other.poll() is None:
                await anyio.sleep(0.1)
        assert json.loads(other.stdout.read())["status"] == "succeeded"
    finally:
        if other.poll() is None:
            other.kill()
        other.wait()
        other.stdout.close()
        other.stderr.close()


def test_the_parts_of_a_run_page_refuse_what_is_not_there(
    ui: Ui, failed_run: dict[str, Any]
) -> None:
    path = f"/runs/{failed_run['runId']}"
    assert status(ui.port, f"{path}?part=item&item=1") == 200
    assert status(ui.port, f"{path}?part=item&item=99") == 404
    assert status(ui.port, f"{path}?part=item&item=-1") == 404
    assert status(ui.port, f"{path}?part=items&from=0&to=3") == 200
    assert status(ui.port, f"{path}?part=items&from=x&to=3") == 400
