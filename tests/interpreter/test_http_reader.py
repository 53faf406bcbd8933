"""crawl_site's http engine reads as its browser engine does: a profile's login, redirects under
the URL policy at every hop, and clear failures for a redirect loop or a damaged profile."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from taskplate.browser import BrowserRuntime
from taskplate.contract import TrustLevel
from taskplate.interpreter import SHIPPED, Limits, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from taskplate.stdlib.web._client import WebConfig
from tests.conftest import fake_dns, login_inputs
from tests.fixtures.crawl_site import FAKE_HOSTS, CrawlSite, MappedNetwork, serve_site
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def crawl() -> Iterator[CrawlSite]:
    with serve_site(pages=10) as site:
        yield site


@pytest.fixture
async def runs(tmp_path: Path, runtime: BrowserRuntime) -> AsyncIterator[RunManager]:
    manager = RunManager(
        tmp_path / "home",
        TemplateLibrary(REGISTRY).load([SHIPPED]),
        runtime=runtime,
        limits=Limits(max_concurrent_runs=2),
        web=WebConfig(network=MappedNetwork(FAKE_HOSTS)),
        resolver=fake_dns,
    )
    async with manager.running():
        yield manager
        await manager.sessions.close_all()  # login_keep_session keeps its session
    assert manager.sessions.open_tabs == 0, "a run left tabs open"


async def run(
    manager: RunManager,
    template: str,
    trust: TrustLevel = TrustLevel.LOCAL,
    profile_id: str | None = None,
    **inputs: Any,
) -> dict[str, Any]:
    run_id = await manager.submit(template, inputs, trust=trust, profile_id=profile_id)
    with anyio.fail_after(120):
        answer = await manager.wait(run_id)
    result = answer.get("result") or {}
    if "resultArtifactId" in result:
        result = json.loads((await manager.artifacts.read(result["resultArtifactId"])).data)
    return {**answer, "result": result}


async def page(manager: RunManager, url: str, engine: str, profile: str | None = None) -> Any:
    """The one item of a crawl of `url` alone."""
    answer = await run(
        manager, "crawl_site", profile_id=profile, startUrl=url, maxDepth=0, engine=engine
    )
    [item] = answer["result"]["items"]
    return item


async def test_a_logged_in_page_reads_the_same_over_http_as_in_the_browser(
    runs: RunManager, site: FixtureServer
) -> None:
    login = await run(runs, "login_keep_session", **login_inputs(site, profileId="work"))
    assert login["status"] == "succeeded", login
    version = runs.profiles.read("work").version
    members = site.url("/members")
    over_http = await page(runs, members, "http", "work")
    assert runs.profiles.read("work").version == version  # plain HTTP publishes nothing
    in_browser = await page(runs, members, "browser", "work")
    assert over_http["engine"] == "http" and in_browser["engine"] == "browser"
    assert "Members-only content" in over_http["content"]
    assert over_http["content"] == in_browser["content"]
    assert over_http["title"] == in_browser["title"] == "Members"
    stranger = await page(runs, members, "http")  # the master profile: never logged in
    assert "Members-only content" not in stranger["content"]


@pytest.mark.parametrize("start", ["/to-private", "/chain/3"])
async def test_a_redirect_to_a_forbidden_address_is_refused_at_any_hop(
    runs: RunManager, crawl: CrawlSite, start: str
) -> None:
    """Hop 1 (/to-private) and hop 3 (/chain/3 → /chain/2 → /chain/1 → private.test)."""
    crawl.reset()
    port = crawl.server_address[1]
    answer = await run(
        runs,
        "crawl_site",
        TrustLevel.REMOTE,
        startUrl=f"http://public.test:{port}{start}",
        maxDepth=0,
        engine="http",
    )
    [item] = answer["result"]["items"]
    assert item["error"]["code"] == "URL_NOT_ALLOWED"
    assert "private.test" in item["error"]["message"] and "10.1.2.3" in item["error"]["message"]
    hops = [p for p in crawl.hits if p.startswith(("/chain/", "/to-private"))]
    assert all(crawl.hits[p] == 1 for p in hops) and len(hops) == (3 if "chain" in start else 1)
    assert crawl.hits["/p/1"] == 0  # the forbidden hop never made


async def test_a_redirect_loop_fails_its_item_clearly(
    runs: RunManager, site: FixtureServer
) -> None:
    item = await page(runs, site.url("/loop"), "http")
    assert item["success"] is False and item["error"]["code"] == "NAVIGATION_FAILED"
    assert "redirected more than" in item["error"]["message"]


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
async def test_a_damaged_profile_fails_the_read_clearly(
    runs: RunManager, site: FixtureServer, damage: str
) -> None:
    folder = runs.profiles.ensure("work")
    if damage == "missing":
        (folder / "state.json").unlink()
    else:
        (folder / "state.json").write_bytes(b'{"cookies": [')
    item = await page(runs, site.url("/members"), "http", "work")
    assert item["success"] is False and item["error"]["code"] == "EXECUTION_ERROR"
    assert "profile work cannot be read" in item["error"]["message"]
