"""crawl_site and map_site end to end on a generated 500-page site (tests/fixtures/crawl_site.py):
each allowed page read once, never a disallowed one, bounds followed, failures per item, the
browser only for the page that needs script, and remote callers kept off private addresses."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest

from taskplate.browser import BrowserRuntime
from taskplate.contract import TaskplateError, TrustLevel
from taskplate.interpreter import SHIPPED, Limits, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from taskplate.stdlib.web._client import WebConfig
from tests.conftest import NOWHERE_HOST, fake_dns
from tests.fixtures.crawl_site import FAKE_HOSTS, CrawlSite, MappedNetwork, depth_of, serve_site
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio
USER_AGENT = "taskplate-tests/1.0 (+operator@example.invalid)"


@pytest.fixture(scope="module")
def crawl() -> Iterator[CrawlSite]:
    with serve_site() as site:
        yield site


@pytest.fixture
async def runs(
    tmp_path: Path, runtime: BrowserRuntime, crawl: CrawlSite
) -> AsyncIterator[RunManager]:
    web = WebConfig(user_agent=USER_AGENT, network=MappedNetwork(FAKE_HOSTS))
    library = TemplateLibrary(REGISTRY).load([SHIPPED])
    manager = RunManager(
        tmp_path / "home",
        library,
        runtime=runtime,
        limits=Limits(max_concurrent_runs=2),
        web=web,
        resolver=fake_dns,
    )
    async with manager.running():
        yield manager
    assert manager.sessions.open_tabs == 0, "a run left tabs open"
    crawl.reset()


async def run(
    manager: RunManager, template: str, trust: TrustLevel = TrustLevel.LOCAL, **inputs: Any
) -> dict[str, Any]:
    run_id = await manager.submit(template, inputs, options={"timeoutMs": 600_000}, trust=trust)
    with anyio.fail_after(600):
        answer = await manager.wait(run_id)
    result = answer.get("result") or {}
    if "resultArtifactId" in result:  # a large result is an artifact, as every result
        result = json.loads((await manager.artifacts.read(result["resultArtifactId"])).data)
    return {**answer, "result": result}


def expected_depth(k: int) -> int:
    """A page's tree depth, one less under /p/1 (the sitemap lists it: depth 0)."""
    node = k
    while node > 1:
        node = (node - 1) // 5
    return depth_of(k) - 1 if node == 1 else depth_of(k)


def path(url: str) -> str:
    return urlsplit(url).path


async def test_crawl_reads_every_allowed_page_once_and_never_a_disallowed_one(
    runs: RunManager, crawl: CrawlSite
) -> None:
    crawl.reset()
    answer = await run(
        runs,
        "crawl_site",
        startUrl=crawl.url("/"),
        maxDepth=20,
        maxPages=5000,
        engine="http",
        format="text",
        onlyMainContent=False,
        maxPageBytes=1_000_000,
    )
    assert answer["status"] == "partial_success", answer.get("error")
    items = answer["result"]["items"]
    read = [path(i["finalUrl"]) for i in items if i["success"]]
    assert sorted(read) == sorted(crawl.allowed_pages())  # each allowed page, once
    assert not [p for p in crawl.hits if p.startswith("/private/")]  # never a disallowed one
    pages = crawl.allowed_pages() | crawl.FAILING | {"/old"}
    assert {p: n for p, n in crawl.hits.items() if p in pages and n != 1} == {}
    assert crawl.hits["/robots.txt"] == 1 and crawl.hits["/sitemap.xml"] == 1
    assert crawl.user_agents == {USER_AGENT}
    failed = {path(i["url"]): i["error"] for i in items if not i["success"]}
    assert set(failed) == set(crawl.FAILING)  # failures per item, the crawl goes on
    assert "HTTP 404" in failed["/missing"]["message"]
    assert "size limit" in failed["/huge"]["message"]
    assert "not HTML" in failed["/file.pdf"]["message"]
    assert {i["engine"] for i in items if i["success"]} == {"http"}
    by_path = {path(i["url"]): i for i in items}
    # Depth counts links from the start page, or from the sitemap, which lists /p/1 (depth 0)
    assert all(by_path[f"/p/{k}"]["depth"] == expected_depth(k) for k in range(1, 500))
    assert by_path["/orphan"]["depth"] == 0  # from the sitemap
    page = by_path["/p/37"]
    assert page["title"] == "Page 37" and "crawlers read" in page["content"]
    assert answer["result"]["summary"]["dropped"] == 0
    assert answer["result"]["summary"]["total"] == len(crawl.allowed_pages()) + 3


async def test_crawl_follows_its_bounds(runs: RunManager, crawl: CrawlSite) -> None:
    crawl.reset()
    answer = await run(
        runs, "crawl_site", startUrl=crawl.url("/"), maxPages=12, engine="http", useSitemap=False
    )
    items = answer["result"]["items"]
    assert len(items) == 12 and answer["result"]["summary"]["dropped"] > 0
    # Nothing more read: each item's page once, and the hop of a redirect (/old -> /moved) where
    # one is among the 12 (which links are found first depends on which pages answer first).
    asked = {path(i["url"]) for i in items} | {
        path(i["finalUrl"]) for i in items if i.get("finalUrl")
    }
    assert {p: n for p, n in crawl.hits.items() if p != "/robots.txt"} == dict.fromkeys(asked, 1)

    crawl.reset()
    answer = await run(runs, "crawl_site", startUrl=crawl.url("/p/1"), maxDepth=1, engine="http")
    paths = {path(i["url"]): i["depth"] for i in answer["result"]["items"]}
    # /p/1 and the sitemap's / and /orphan at depth 0; their links at depth 1, no further
    assert paths == {
        "/p/1": 0,
        "/": 0,
        "/orphan": 0,
        **{f"/p/{k}": 1 for k in range(2, 11)},
        "/missing": 1,
    }

    crawl.reset()
    answer = await run(
        runs,
        "crawl_site",
        startUrl=crawl.url("/"),
        maxDepth=3,
        include=["*/p/1", "*/p/1?*", "*/p/[6-9]", "*/p/10"],
        exclude=["*/p/9"],
        engine="http",
        useSitemap=False,
    )
    assert {path(i["url"]) for i in answer["result"]["items"]} == {
        "/",
        "/p/1",
        "/p/6",
        "/p/7",
        "/p/8",
        "/p/10",
    }


async def test_auto_reads_over_http_and_renders_only_the_script_page(
    runs: RunManager, crawl: CrawlSite
) -> None:
    crawl.reset()
    answer = await run(
        runs,
        "crawl_site",
        startUrl=crawl.url("/p/2"),
        maxDepth=1,
        include=["*/app", "*/old"],
        useSitemap=False,
    )
    assert answer["status"] == "succeeded", answer.get("error")
    items = {path(i["url"]): i for i in answer["result"]["items"]}
    assert set(items) == {"/p/2", "/app", "/old"}
    assert items["/app"]["engine"] == "browser"
    assert "Rendered by script" in items["/app"]["content"]
    assert items["/p/2"]["engine"] == items["/old"]["engine"] == "http"
    assert path(items["/old"]["finalUrl"]) == "/moved"

    crawl.reset()
    answer = await run(
        runs,
        "crawl_site",
        startUrl=crawl.url("/p/4"),
        maxDepth=1,
        engine="browser",
        useSitemap=False,
    )
    items = {path(i["url"]): i for i in answer["result"]["items"]}
    assert {i["engine"] for i in items.values()} == {"browser"}
    assert set(items) == {"/p/4", "/", "/p/1", *(f"/p/{k}" for k in range(21, 26))}
    assert not [p for p in crawl.hits if p.startswith("/private/")]


async def test_remote_crawl_never_follows_a_redirect_to_a_private_address(
    runs: RunManager, crawl: CrawlSite
) -> None:
    crawl.reset()
    port = crawl.server_address[1]
    answer = await run(
        runs,
        "crawl_site",
        TrustLevel.REMOTE,
        startUrl=f"http://public.test:{port}/to-private",
        maxDepth=0,
        engine="http",
    )
    assert answer["status"] == "failed"
    [item] = answer["result"]["items"]
    assert item["error"]["code"] == "URL_NOT_ALLOWED"
    assert "private.test" in item["error"]["message"] and "10.1.2.3" in item["error"]["message"]
    assert crawl.hits["/to-private"] == 1 and crawl.hits["/p/1"] == 0  # the hop never made

    answer = await run(
        runs, "crawl_site", TrustLevel.REMOTE, startUrl=f"http://127.0.0.1:{port}/", maxDepth=0
    )
    assert answer["result"]["items"][0]["error"]["code"] == "URL_NOT_ALLOWED"
    assert crawl.hits["/"] == 0


async def test_map_site_lists_urls_from_the_sitemap_and_links(
    runs: RunManager, crawl: CrawlSite
) -> None:
    crawl.reset()
    answer = await run(runs, "map_site", url=crawl.url("/"), maxPages=40)
    assert answer["status"] == "partial_success", answer.get("error")  # /missing, /file.pdf
    urls = answer["result"]["urls"]
    assert len(urls) == 40 == answer["result"]["count"] and len(set(urls)) == 40
    assert crawl.url("/orphan") in urls  # only the sitemap lists it
    assert not [u for u in urls if "/private/" in u]
    assert not [p for p in crawl.hits if p.startswith("/private/")]
    assert answer["result"]["fromSitemap"] == 3  # /private/listed is left out (robots.txt)
    assert answer["result"]["pagesRead"] <= 40


@pytest.mark.parametrize(
    ("inputs", "wrong"),
    [
        ({"startUrl": "http://127.0.0.1/", "maxPages": 5001}, "maxPages"),
        ({"startUrl": "http://127.0.0.1/", "engine": "fast"}, "engine"),
        ({"startUrl": "ftp://127.0.0.1/"}, "startUrl"),
        ({"startUrl": "http://127.0.0.1/", "concurrency": 0}, "concurrency"),
    ],
)
async def test_bad_crawl_inputs_are_refused_before_anything_runs(
    runs: RunManager, crawl: CrawlSite, inputs: dict[str, Any], wrong: str
) -> None:
    crawl.reset()
    with pytest.raises(TaskplateError) as caught:
        await runs.submit("crawl_site", inputs)
    assert caught.value.code == "INVALID_PARAMETER" and wrong in caught.value.message
    assert not runs.live and runs.sessions.open_tabs == 0 and not crawl.hits


async def test_a_canceled_crawl_stops_and_leaves_nothing_open(
    runs: RunManager, crawl: CrawlSite
) -> None:
    crawl.reset()
    run_id = await runs.submit(
        "crawl_site",
        {"startUrl": crawl.url("/"), "maxDepth": 20, "maxPages": 5000, "engine": "auto"},
    )
    with anyio.fail_after(120):
        while sum(crawl.hits.values()) < 30:
            await anyio.sleep(0.05)
    await runs.cancel(run_id)
    with anyio.fail_after(120):
        answer = await runs.wait(run_id)
    assert answer["status"] == "canceled"
    read = sum(crawl.hits.values())
    await anyio.sleep(0.5)
    assert sum(crawl.hits.values()) == read  # nothing reads on after the answer
    assert runs.sessions.open_tabs == 0 and not runs.live


async def test_items_that_need_the_browser_at_once_share_one_session(
    runs: RunManager, crawl: CrawlSite
) -> None:
    """Item tabs open lazily, so several items ask for the run's session at the same moment."""
    answer = await run(
        runs,
        "crawl_site",
        startUrl=crawl.url("/p/2"),
        maxDepth=1,  # the start page and the sitemap's three start at once
        engine="browser",
        maxPages=4,
        concurrency=6,
    )
    assert {i["engine"] for i in answer["result"]["items"] if i["success"]} == {"browser"}
    assert runs.sessions.sessions == {} and runs.sessions.open_tabs == 0


@pytest.mark.parametrize("engine", ["http", "browser"])
async def test_a_page_that_cannot_be_opened_is_a_failed_item_on_either_engine(
    runs: RunManager, site: FixtureServer, engine: str
) -> None:
    for start, code in (
        (f"http://{NOWHERE_HOST}/", "NAVIGATION_FAILED"),
        (f"https://127.0.0.1:{site.server_address[1]}/article.html", "NAVIGATION_FAILED"),
    ):
        answer = await run(
            runs, "crawl_site", startUrl=start, maxDepth=0, engine=engine, useSitemap=False
        )
        (item,) = answer["result"]["items"]
        assert not item["success"] and item["content"] is None, item
        assert item["error"]["code"] == code, item


async def test_a_browser_crawl_keeps_what_a_page_showed_before_its_script_left(
    runs: RunManager, site: FixtureServer
) -> None:
    start = site.url(f"/article-leaves.html?to=http://{NOWHERE_HOST}/adblock")
    answer = await run(runs, "crawl_site", startUrl=start, maxDepth=0, engine="browser")
    (item,) = answer["result"]["items"]
    assert item["success"] and "## Why batches are slow" in item["content"], item
    assert item["title"] == "Tuning the sliding window"
    start = site.url(f"/leave.html?to=http://{NOWHERE_HOST}/later")  # nothing to read first
    (item,) = (await run(runs, "crawl_site", startUrl=start, maxDepth=0, engine="browser"))[
        "result"
    ]["items"]
    assert not item["success"] and "ERR_NAME_NOT_RESOLVED" in item["error"]["message"], item
