"""The shipped templates end to end, over real Chromium against the fixture site."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable

import anyio
import pytest

from taskplate.browser import Session, Tab, crashed
from taskplate.browser import _contexts as _session
from taskplate.contract import TaskplateError
from taskplate.interpreter import RunManager, _item_tabs
from tests.browser.test_sessions import kill_browser
from tests.conftest import NOWHERE_HOST, login_inputs
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


async def batch(manager: RunManager, urls: list[str], **inputs: object) -> dict:
    run_id = await manager.submit(
        "batch_extract_pages", {"urls": urls, **inputs}, options={"timeoutMs": 60_000}
    )
    with anyio.fail_after(90):
        return await manager.wait(run_id)


async def test_all_good_pages_succeed_with_an_export(
    manager: RunManager, site: FixtureServer
) -> None:
    answer = await batch(
        manager, [site.url("/article.html"), site.url("/recipe.html"), site.url("/js.html")]
    )
    assert answer["status"] == "succeeded"
    items = answer["result"]["items"]
    assert [i["title"] for i in items] == [
        "Tuning the sliding window",
        "Weeknight lentil soup",
        "Rendered by script",
    ]
    assert "written by JavaScript" in items[2]["content"]
    export = await manager.artifacts.read(answer["result"]["exportArtifactId"])
    assert json.loads(export.data)[0]["url"] == site.url("/article.html")
    assert answer["artifacts"][0]["name"] == "pages.json"


async def test_four_good_of_six_is_partial_success(
    manager: RunManager, site: FixtureServer
) -> None:
    good = [site.url(p) for p in ("/article.html", "/recipe.html", "/latin1", "/js.html")]
    answer = await batch(manager, [*good, site.url("/status/404"), site.url("/status/500")])
    assert answer["status"] == "partial_success"
    summary = answer["result"]["summary"]
    assert summary == {"total": 6, "succeeded": 4, "failed": 2, "skipped": 0}
    failed = [i for i in answer["result"]["items"] if not i["success"]]
    assert {f["error"]["message"] for f in failed} == {  # the assert step after the read
        'step "pages/1" failed: the page answered HTTP 404',
        'step "pages/1" failed: the page answered HTTP 500',
    }


async def test_items_that_end_on_the_browser_error_page_fail_naming_the_net_error(
    manager: RunManager, site: FixtureServer
) -> None:
    away = site.url(f"/leave.html?to=http://{NOWHERE_HOST}/later")
    urls = [site.url("/article.html"), site.url("/recipe.html"), f"http://{NOWHERE_HOST}/", away]
    answer = await batch(manager, urls)
    assert answer["status"] == "partial_success"
    failed = [i for i in answer["result"]["items"] if not i["success"]]
    assert [f["url"] for f in failed] == urls[2:]
    for item in failed:
        assert item["error"]["code"] == "NAVIGATION_FAILED", item["error"]
        assert "ERR_NAME_NOT_RESOLVED" in item["error"]["message"]
        assert item["content"] is None


async def test_batch_loads_no_images_media_or_fonts_by_default(
    manager: RunManager, site: FixtureServer
) -> None:
    site.traffic.paths.clear()
    answer = await batch(manager, [site.url("/heavy.html")], blockAds=True)
    assert answer["status"] == "succeeded"
    assert "Text worth reading" in answer["result"]["items"][0]["content"]
    assert not [p for p in site.traffic.paths if p.startswith("/heavy-")]


async def test_recycled_tabs_start_each_item_clean_and_the_browser_stays_warm(
    manager: RunManager, site: FixtureServer
) -> None:
    urls = [site.url("/article.html"), site.url("/recipe.html"), site.url("/article.html")]
    launches = manager.runtime.launches
    for _ in range(2):
        run_id = await manager.submit("recycled", {"urls": urls})
        with anyio.fail_after(60):
            answer = await manager.wait(run_id)
        assert answer["status"] == "succeeded"
        assert [i["seen"] for i in answer["result"]["items"]] == [[None, ""]] * 3
    assert manager.runtime.launches <= max(launches, 1)  # one Chromium for every run


async def test_a_recycled_tab_is_retired_after_a_number_of_items(
    manager: RunManager, site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_item_tabs, "TAB_RETIRES_AFTER", 2)
    opened: list[str] = []
    new_tab = Session.new_tab

    async def counting(self: Session) -> Tab:
        tab = await new_tab(self)
        opened.append(tab.id)
        return tab

    monkeypatch.setattr(Session, "new_tab", counting)
    urls = [site.url(f"/article.html?n={i}") for i in range(5)]
    run_id = await manager.submit("recycled", {"urls": urls})
    with anyio.fail_after(60):
        answer = await manager.wait(run_id)
    assert answer["status"] == "succeeded" and len(opened) == 3  # items 1-2, 3-4, 5


async def test_a_context_retired_while_items_are_in_flight_loses_none_and_keeps_the_login(
    manager: RunManager, site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_session, "CONTEXT_RETIRES_AFTER", 2)
    browser = await manager.runtime.browser()
    before = len(browser.contexts)
    retirements: list[int] = []
    close_drained = Session.close_drained

    async def counting(self: Session) -> None:
        retirements.append(self.retirements)
        await close_drained(self)

    monkeypatch.setattr(Session, "close_drained", counting)
    urls = [site.url(f"/members?n={i}") for i in range(9)]
    run_id = await manager.submit("retiring", {"login": site.url("/auto-login"), "urls": urls})
    with anyio.fail_after(90):
        answer = await manager.wait(run_id)
    assert answer["status"] == "succeeded", answer.get("error")
    items = answer["result"]["items"]
    assert [i["success"] for i in items] == [True] * 9
    assert [i["member"] for i in items] == [True] * 9  # signed in, before and after retiring
    assert max(retirements) >= 3  # the context was replaced while other items were running
    assert len(browser.contexts) == before  # every retired context was closed


async def test_an_item_that_gets_no_tab_fails_as_an_item(
    manager: RunManager, site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_item_tabs, "TAB_RETIRES_AFTER", 1)  # every item opens a tab
    calls = [0]
    new_tab = Session.new_tab

    async def failing_once(self: Session) -> Tab:
        calls[0] += 1
        if calls[0] == 2:
            raise crashed("the browser went down while opening a tab")
        return await new_tab(self)

    monkeypatch.setattr(Session, "new_tab", failing_once)
    urls = [site.url(f"/gate?n=open{i}") for i in range(3)]
    for i in range(3):
        site.open_gate(f"open{i}")
    run_id = await manager.submit(
        "batch_extract_pages", {"urls": urls, "concurrency": 1, "engine": "browser"}
    )
    with anyio.fail_after(90):
        answer = await manager.wait(run_id)
    assert answer["status"] == "partial_success", answer.get("error")
    failed = [i for i in answer["result"]["items"] if not i["success"]]
    assert [f["error"]["code"] for f in failed] == ["PAGE_CRASHED"]


async def test_two_good_of_six_fails(manager: RunManager, site: FixtureServer) -> None:
    bad = [site.url(f"/status/{c}") for c in (404, 410, 500, 503)]
    answer = await batch(manager, [site.url("/article.html"), site.url("/recipe.html"), *bad])
    assert answer["status"] == "failed"
    assert (
        answer["error"]["errorCode"] == "STEP_EXECUTION_FAILED"
        and "2 of 6" in answer["error"]["error"]
    )
    assert answer["result"]["summary"]["succeeded"] == 2


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for a condition of the fixture site; the bound only stops a hang (no speed claim)."""
    with anyio.fail_after(120):
        while not condition():
            await anyio.sleep(0.02)


async def test_the_window_is_exact_and_a_slow_item_holds_nothing_back(
    manager: RunManager, site: FixtureServer
) -> None:
    # Every page is held by the site until the test lets it through, so what is proved is the
    # order of events, whatever the machine's speed: the window fills to exactly 3, and each
    # page let through is replaced by the next item while the other two are still held.
    site.traffic.reset()
    names = [f"w{i}" for i in range(9)]
    urls = [site.url(f"/gate?n={name}") for name in names]
    run_id = await manager.submit(
        "batch_extract_pages",
        {"urls": urls, "concurrency": 3, "waitFor": 1, "engine": "browser"},
        options={"trace": "off"},
    )
    for released in range(len(names)):
        left = len(names) - released
        await until(lambda left=left: len(site.waiting) == min(3, left), "the window to fill")
        held = list(site.waiting)
        assert site.traffic.most == 3 and len(held) == min(3, left)
        site.open_gate(held[0])  # the oldest
        if left > 3:  # its slot goes to the next item while the other two are still held
            let_through = held[0]
            await until(
                lambda gone=let_through: len(site.waiting) == 3 and gone not in site.waiting,
                "the next item",
            )
            assert set(held[1:]) <= set(site.waiting)
    with anyio.fail_after(120):
        assert (await manager.wait(run_id))["status"] == "succeeded"
    assert site.traffic.most == 3

    # A slow item holds nothing back: every other page is read while it is still held.
    site.traffic.reset()
    fast = [site.url(f"/article.html?n={i}") for i in range(8)]
    run_id = await manager.submit(
        "batch_extract_pages",
        {"urls": [site.url("/gate?n=slow"), *fast], "concurrency": 3, "waitFor": 1},
        options={"trace": "off"},
    )

    async def items_done() -> int:
        return int(
            (await manager.describe(run_id)).get("progress", {}).get("items", {}).get("done", 0)
        )

    # The progress a reader sees follows too: the last items' count is written though no other
    # change comes after it while the slow page is held (it once waited for its 20 s timeout).
    with anyio.fail_after(120):  # as `until`, for a condition read from the store
        while await items_done() != 8:
            await anyio.sleep(0.02)
    assert site.waiting == ["slow"], "the slow page was asked for once, and is still held"
    site.open_gate("slow")
    with anyio.fail_after(120):
        answer = await manager.wait(run_id)
    slow, *others = answer["result"]["items"]
    assert all(i["success"] for i in others)
    assert slow["success"], slow


async def test_run_timeout_over_a_hanging_page_keeps_finished_items(
    manager: RunManager, site: FixtureServer
) -> None:
    urls = [site.url("/article.html"), site.url("/recipe.html"), site.url("/hang")]
    run_id = await manager.submit(
        "batch_extract_pages",
        {"urls": urls, "concurrency": 3, "waitFor": 1},
        # Long enough for two local pages on a loaded machine, shorter than the hanging page's
        # own 20 s navigation timeout: the run's timeout is what ends it.
        options={"timeoutMs": 15_000},
    )
    with anyio.fail_after(60):
        answer = await manager.wait(run_id)
    assert answer["status"] == "failed" and answer["error"]["errorCode"] == "RUN_TIMEOUT"
    kept = [i["url"] for i in answer["result"]["items"] if i["success"]]
    assert sorted(kept) == sorted(urls[:2])
    assert manager.sessions.open_tabs == 0 and manager.sessions.sessions == {}


async def test_killing_chromium_mid_batch_fails_only_the_items_in_flight(
    manager: RunManager, site: FixtureServer
) -> None:
    site.traffic.reset()
    urls = [site.url(f"/slow?ms=1500&n={i}") for i in range(6)]
    run_id = await manager.submit(
        "batch_extract_pages", {"urls": urls, "concurrency": 3, "waitFor": 1, "engine": "browser"}
    )
    with anyio.fail_after(20):
        while site.traffic.inflight < 3:
            await anyio.sleep(0.02)
    kill_browser(manager.runtime)
    with anyio.fail_after(60):
        answer = await manager.wait(run_id)
    items = answer["result"]["items"]
    crashed = [i for i in items if not i["success"]]
    assert len(crashed) == 3 and {i["error"]["code"] for i in crashed} == {"PAGE_CRASHED"}
    assert sum(1 for i in items if i["success"]) == 3
    assert answer["status"] == "partial_success"


async def test_login_with_a_wrong_password_fails_never_partially(
    manager: RunManager, site: FixtureServer, caplog: pytest.LogCaptureFixture
) -> None:
    inputs = login_inputs(site, password="wrong-password-123", timeoutMs=1000)
    run_id = await manager.submit("login_keep_session", inputs)
    with anyio.fail_after(30):
        answer = await manager.wait(run_id)
    assert answer["status"] == "failed"
    assert answer["error"]["details"]["stepErrorCode"] == "ELEMENT_NOT_FOUND"
    assert "wrong-password-123" not in str(await manager.describe(run_id, include_steps=True))
    manager.store.db.execute("PRAGMA wal_checkpoint(FULL)")
    for path in manager.home.glob("runs.db*"):
        assert b"wrong-password-123" not in path.read_bytes(), path
    assert "wrong-password-123" not in caplog.text
    await manager.sessions.close_all()  # the template keeps its session; this test is done with it


async def test_multi_tab_compare_reports_differences_with_screenshots(
    manager: RunManager, site: FixtureServer
) -> None:
    inputs = {
        "urls": [site.url("/article.html"), site.url("/recipe.html")],
        "fields": {"title": "h1", "lang": "html"},
    }
    start = time.monotonic()
    run_id = await manager.submit(
        "multi_tab_compare", {**inputs, "fields": {"title": "h1", "tables": "table"}}
    )
    with anyio.fail_after(60):
        answer = await manager.wait(run_id)
    assert answer["status"] == "succeeded", answer.get("error")
    result = answer["result"]
    assert [d["field"] for d in result["differences"]] == ["title", "tables"]
    assert result["differences"][0]["values"] == [
        {"key": site.url("/article.html"), "value": "Tuning the sliding window"},
        {"key": site.url("/recipe.html"), "value": "Weeknight lentil soup"},
    ]
    names = sorted(a["name"] for a in answer["artifacts"])
    assert names == ["comparison.json", "page-0.png", "page-1.png"]
    assert time.monotonic() - start < 30


async def test_login_publishes_the_profile_keeps_the_session_and_later_runs_are_signed_in(
    manager: RunManager, site: FixtureServer
) -> None:
    inputs = login_inputs(site, profileId="work")
    first = await manager.wait(await manager.submit("login_keep_session", inputs))
    assert first["status"] == "succeeded", first.get("error")
    result = first["result"]
    assert result["alreadyLoggedIn"] is False and result["profileVersion"] == 1
    assert result["sessionId"] in manager.sessions.sessions  # kept open for later calls
    assert [a["name"] for a in first["artifacts"]] == ["signed-in.png"]
    assert manager.profiles.read("work").version == 1

    again = await manager.wait(await manager.submit("login_keep_session", inputs))
    assert again["status"] == "succeeded" and again["result"]["alreadyLoggedIn"] is True

    members = await batch(manager, [site.url("/members")], profileId="work")
    assert "Members-only content" in members["result"]["items"][0]["content"]
    stranger = await batch(manager, [site.url("/members")], profileId="nobody")
    assert stranger["result"]["items"][0]["title"] == "Sign in"
    await manager.sessions.close_all()


async def test_cancel_mid_batch_skips_pending_items_and_keeps_finished_ones(
    manager: RunManager, site: FixtureServer
) -> None:
    urls = [site.url(f"/slow?ms=400&n={i}") for i in range(12)]
    run_id = await manager.submit(
        "batch_extract_pages", {"urls": urls, "concurrency": 2, "waitFor": 1}
    )
    with anyio.fail_after(30):
        while ((await manager.describe(run_id))["progress"].get("items") or {}).get(
            "succeeded", 0
        ) < 2:
            await anyio.sleep(0.05)
    assert (await manager.cancel(run_id))["cancelRequested"] is True
    # No item starts after the cancel: those started by then are the ones done when it was
    # asked (at most `done`, read after it) and those in flight, at most three times the
    # concurrency with engine auto (pages read over HTTP beside the browser's tabs); they
    # finish and every other item is skipped.
    done = (await manager.describe(run_id))["progress"]["items"]["succeeded"]
    with anyio.fail_after(30):
        answer = await manager.wait(run_id)
    assert answer["status"] == "canceled"
    summary = answer["result"]["summary"]
    assert summary["succeeded"] >= 2 and summary["skipped"] >= 12 - done - 2 * 3, (summary, done)
    assert summary["succeeded"] + summary["failed"] + summary["skipped"] == 12, summary
    assert all(i["success"] and i["content"] for i in answer["result"]["items"])
    assert manager.sessions.open_tabs == 0


async def test_a_given_session_is_used_and_never_closed(
    manager: RunManager, site: FixtureServer
) -> None:
    session = await manager.sessions.create()
    answer = await manager.wait(
        await manager.submit(
            "batch_extract_pages",
            {"urls": [site.url("/article.html")], "waitFor": 1},
            session_id=session.id,
        )
    )
    assert answer["status"] == "succeeded"
    assert manager.sessions.get(session.id) is session and session.context is not None
    assert "sessionId" not in answer  # it was not the run's own
    await manager.sessions.close(session.id)
    with pytest.raises(TaskplateError, match="no session"):
        await manager.submit(
            "batch_extract_pages", {"urls": [site.url("/article.html")]}, session_id=session.id
        )


async def test_runs_publish_what_they_changed_to_their_profile_and_never_a_stale_state(
    manager: RunManager, site: FixtureServer
) -> None:
    inputs = login_inputs(site, profileId="pub")
    assert (await manager.wait(await manager.submit("login_keep_session", inputs)))[
        "status"
    ] == "succeeded"
    await manager.sessions.close_all()
    before = manager.profiles.read("pub").version
    visit = await batch(manager, [site.url("/members")], profileId="pub")
    assert visit["status"] == "succeeded"
    after = manager.profiles.read("pub")
    assert after.version == before + 1  # the refreshed lastVisit cookie was published
    assert any(c["name"] == "lastVisit" for c in after.state["cookies"])
    untouched = await batch(manager, [site.url("/article.html")], profileId="pub")
    assert (
        untouched["status"] == "succeeded" and manager.profiles.read("pub").version == after.version
    )


async def test_pages_that_cannot_be_opened_fail_with_a_navigation_code(
    manager: RunManager, site: FixtureServer
) -> None:
    port = site.server_address[1]
    with socket.socket() as closed:  # a port nothing listens on: the connection is refused
        closed.bind(("127.0.0.1", 0))
        refused = f"http://127.0.0.1:{closed.getsockname()[1]}/"
    urls = {
        f"http://{NOWHERE_HOST}/": ("NAVIGATION_FAILED", "ERR_NAME_NOT_RESOLVED"),
        refused: ("NAVIGATION_FAILED", "ERR_CONNECTION_REFUSED"),
        site.url("/hang"): ("NAVIGATION_TIMEOUT", "timed out"),
        f"https://127.0.0.1:{port}/article.html": ("NAVIGATION_FAILED", "ERR_SSL"),  # not TLS
    }
    answer = await batch(manager, [site.url("/article.html"), *urls], pageTimeoutMs=1000)
    items = answer["result"]["items"]
    assert items[0]["success"] and "Why batches are slow" in items[0]["content"]
    for item, (code, text) in zip(items[1:], urls.values(), strict=True):
        assert not item["success"] and item["content"] is None, item
        assert item["error"]["code"] == code and text in item["error"]["message"], item


async def test_content_a_page_script_takes_away_is_kept_and_a_redirect_is_followed(
    manager: RunManager, site: FixtureServer
) -> None:
    urls = [
        site.url(f"/article-leaves.html?to=http://{NOWHERE_HOST}/adblock"),  # leaves at 100 ms
        site.url("/article-notice.html"),  # its request fails: a notice replaces the article
        site.url("/redirect-by-script.html"),  # sends the tab to a page that loads
    ]
    answer = await batch(manager, urls, engine="browser")
    assert answer["status"] == "succeeded", [i.get("error") for i in answer["result"]["items"]]
    leaves, notice, moved = answer["result"]["items"]
    for item in (leaves, notice):
        assert "## Why batches are slow" in item["content"], item
        assert item["title"] == "Tuning the sliding window"
    assert any("ERR_NAME_NOT_RESOLVED" in w for w in leaves["warnings"]), leaves
    assert any("much shorter" in w for w in notice["warnings"]), notice
    assert "lentil" in moved["content"].lower() and not moved["warnings"]


async def test_a_page_whose_script_leaves_before_it_loaded_for_a_refused_address_is_read_as_it_was(
    manager: RunManager, site: FixtureServer
) -> None:
    with socket.socket() as closed:  # a port nothing listens on: the connection is refused
        closed.bind(("127.0.0.1", 0))
        refused = f"http://127.0.0.1:{closed.getsockname()[1]}/adblock"
    urls = [
        site.url(f"/article-leaves.html?early=1&to={refused}"),  # leaves as soon as parsed
        site.url(f"/article-leaves.html?early=1&to=http://{NOWHERE_HOST}/adblock"),
        site.url("/article.html"),
    ]
    answer = await batch(manager, urls, engine="browser")
    assert answer["status"] == "succeeded", [i.get("error") for i in answer["result"]["items"]]
    to_refused, to_nowhere, plain = answer["result"]["items"]
    for item, why in (
        (to_refused, "ERR_CONNECTION_REFUSED"),
        (to_nowhere, "ERR_NAME_NOT_RESOLVED"),
    ):
        assert "## Why batches are slow" in item["content"], item
        assert item["title"] == "Tuning the sliding window"
        assert any(why in w and "before" in w for w in item["warnings"]), item
    assert "Why batches are slow" in plain["content"] and not plain["warnings"]
