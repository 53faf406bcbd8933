"""batch_extract_pages' engines over real Chromium against the fixture site: auto reads a mixed
corpus as the browser does, page by page, and says which engine read each page and why."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import RunManager
from taskplate.stdlib import ActionContext, run_action
from taskplate.stdlib.reading.get_page_content import NO_TEXT
from taskplate.stdlib.reading.read_page import BLANK, token_f1
from tests.conftest import login_inputs
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio

# (React's streamed page: its late parts put in place over HTTP as its script puts them)
STATIC = ["/article.html", "/recipe.html", "/story.html", "/react-article.html", "/streamed.html"]
SCRIPTED = [
    "/js.html",
    "/script-article.html",
    "/shadow-article.html",
    "/shadow-card.html",
    "/lazy-article.html",  # its images come in by script as they come into view
    "/lazy.html",  # its list grows by script as it is scrolled
]
LOGIN_ONLY = "/members"


async def batch(manager: RunManager, urls: list[str], **inputs: Any) -> dict[str, Any]:
    run_id = await manager.submit(
        "batch_extract_pages", {"urls": urls, **inputs}, options={"timeoutMs": 90_000}
    )
    with anyio.fail_after(120):
        answer = await manager.wait(run_id)
    assert answer["status"] == "succeeded", answer
    return {item["url"]: item for item in answer["result"]["items"]}


async def test_auto_reads_a_mixed_corpus_as_the_browser_does(
    manager: RunManager, site: FixtureServer
) -> None:
    login = await manager.wait(
        await manager.submit("login_keep_session", login_inputs(site, profileId="work"))
    )
    assert login["status"] == "succeeded", login.get("error")
    await manager.sessions.close_all()
    paths = [*STATIC[:2], *SCRIPTED[:2], *STATIC[2:], LOGIN_ONLY, *SCRIPTED[2:]]
    urls = [site.url(p) for p in paths]
    in_browser = await batch(manager, urls, engine="browser", profileId="work")
    auto = await batch(manager, urls, profileId="work")  # auto is the default
    for url in urls:
        same = token_f1(auto[url]["content"], in_browser[url]["content"])
        assert same >= 0.99, (url, same, auto[url]["content"], in_browser[url]["content"])
        assert auto[url]["title"] == in_browser[url]["title"], url
        assert in_browser[url]["engine"] == "browser"
    assert "Members-only content" in auto[site.url(LOGIN_ONLY)]["content"]
    for path in SCRIPTED:
        item = auto[site.url(path)]
        assert item["engine"] == "browser" and "needs script" in item["engineReason"], item
    over_http = {u for u, item in auto.items() if item["engine"] == "http"}
    assert over_http >= {site.url(p) for p in STATIC[2:]}  # the host was learned by then
    assert all(auto[u]["engineReason"] is None for u in over_http)


async def test_engine_http_never_starts_a_browser(manager: RunManager, site: FixtureServer) -> None:
    items = await batch(manager, [site.url(p) for p in STATIC], engine="http")
    assert {item["engine"] for item in items.values()} == {"http"}
    assert "sliding window" in items[site.url("/article.html")]["content"]
    streamed = items[site.url("/streamed.html")]["content"]
    assert "Every spring" in streamed and "Fishermen" in streamed
    assert "Spring sale" not in streamed and "Loading" not in streamed
    assert manager.sessions.sessions == {}  # no session was opened for the run


@pytest.mark.parametrize("wall", ["403", "200"])
async def test_a_page_walled_off_from_http_is_read_in_the_browser_saying_why(
    manager: RunManager, site: FixtureServer, wall: str
) -> None:
    url = site.url(f"/guarded?wall={wall}")
    (item,) = (await batch(manager, [url])).values()
    assert item["engine"] == "browser" and item["title"] == "Tuning the sliding window"
    why = "answered 403" if wall == "403" else "needs script"
    assert why in item["engineReason"], item


async def test_binary_and_oversized_answers_are_refused_by_auto_as_fetch_refuses_them(
    site: FixtureServer,
) -> None:
    ctx = ActionContext()  # no browser: a refusal must come before one would be asked for
    with pytest.raises(TaskplateError) as binary:
        await run_action("read_page", ctx, {"url": site.url("/report.txt")})
    assert binary.value.code is ErrorCode.NAVIGATION_FAILED and "not HTML" in binary.value.message
    with pytest.raises(TaskplateError) as large:
        await run_action("read_page", ctx, {"url": site.url("/large"), "maxBodyBytes": 10_000})
    assert large.value.code is ErrorCode.NAVIGATION_FAILED
    assert "larger than the size limit" in large.value.message


async def test_a_host_whose_pages_read_differently_both_ways_is_read_in_the_browser(
    manager: RunManager, site: FixtureServer
) -> None:
    # Nothing in the live page's HTML asks for script; reading it both ways shows the difference,
    # and the host's next pages go to the browser for the rest of the run.
    # The window holds 3 pages (3 × concurrency over HTTP): the live pages fill it, so a verdict
    # is reached before the article and the recipe start.
    live_pages = [f"/live-update.html?n={n}" for n in range(3)]
    urls = [site.url(p) for p in (*live_pages, "/article.html", "/recipe.html")]
    items = await batch(manager, urls, concurrency=1)
    *lives, article, recipe = items.values()
    for live in lives:
        assert live["engine"] == "browser" and "sailings are cancelled" in live["content"], live
    assert sum("they differ" in live["engineReason"] for live in lives) >= 1
    others = [article, recipe]
    for item in others:
        assert item["engine"] == "browser", item
        assert "read differently over HTTP and in the browser" in item["engineReason"]


async def test_a_page_its_script_empties_is_read_over_http_saying_so(
    manager: RunManager, site: FixtureServer
) -> None:
    # Nothing in its HTML asks for script; in the browser the page shows no text at all. auto
    # answers the HTML the server sent, with a warning, never an empty reading.
    url = site.url("/blanked.html")
    (seen,) = (await batch(manager, [url], engine="browser")).values()
    assert "harbour" not in seen["content"].lower() and NO_TEXT in seen["warnings"]
    (item,) = (await batch(manager, [url])).values()
    assert item["engine"] == "http" and "fuel pontoon stays open" in item["content"], item
    assert BLANK in item["warnings"]


async def test_a_page_with_no_text_says_so_rather_than_naming_a_region(
    manager: RunManager, site: FixtureServer
) -> None:
    # An app's shell: a title, a description, no word on the page. Neither engine has a region
    # of text to fall back on; each says the page shows none.
    url = site.url("/shell.html")
    for engine in ("http", "browser"):
        (item,) = (await batch(manager, [url], engine=engine)).values()
        assert item["content"].strip() == "" and NO_TEXT in item["warnings"], item
