"""Two `dsl serve --transport http` on one PostgreSQL behind a real HAProxy (round-robin, no
stickiness), driven by one client through it: a run started on one server is followed to its end
with every poll answered by the other server than the one before, canceled from the server that does
not run it, and failed with RUN_INTERRUPTED, seen from the survivor, when the server running it is
killed. A browser session lives in the memory of the server that opened it: a call that reaches the
other server gets SESSION_NOT_FOUND saying so. No process is left afterwards.

The run is followed with taskplate's own async mode and `get_task_run` (`follow`); MCP Tasks
(`tasks/get`, `tasks/cancel`) ride the same servers and balancer."""

from __future__ import annotations

import itertools
import json
import os
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import anyio
import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from taskplate.browser import BrowserRuntime, Sessions
from taskplate.interpreter import open_store
from tests.fixtures import haproxy
from tests.fixtures.haproxy import (
    HEADER,
    STICKY,
    Balancer,
    balancing,
    configuration,
    haproxy_bin,
)
from tests.fixtures.postgres import Postgres
from tests.fixtures.processes import all_gone, descendants, end
from tests.fixtures.server import FixtureServer
from tests.server.conftest import Served, stop
from tests.server.test_scale_out import serve
from tests.server.test_transports import call

pytestmark = pytest.mark.anyio

PAGES = 200
ENDED = ("succeeded", "failed", "canceled")
DOCS = Path(__file__).parents[2] / "docs" / "mcp.md"


@dataclass
class Pair:
    """Two servers behind one balancer, and which server answered each request sent through it."""

    balancer: Balancer
    servers: dict[str, Served]
    ports: dict[str, int]
    store_url: str
    answered: list[tuple[str, str]] = field(default_factory=list)  # (tool or method, server)
    processes: set[int] = field(default_factory=set)

    def remember_processes(self) -> None:
        self.remember(self.servers, self.processes)

    @staticmethod
    def remember(servers: dict[str, Served], processes: set[int]) -> None:
        """The servers running now and everything they started (browsers, workers), to check
        at the end that none is left."""
        for served in servers.values():
            if served.process.poll() is None:
                processes |= {served.process.pid, *descendants(served.process.pid)}

    def answers_to(self, asked: str) -> list[str]:
        return [server for what, server in self.answered if what == asked]

    async def owner_of(self, run_id: str) -> str:
        """The name of the server that runs `run_id` (from the store's owner: host:pid:…)."""
        async with open_store(self.balancer.folder, self.store_url) as store:
            row = await store.run(run_id)
        assert row is not None and row.owner is not None, row
        pid = int(row.owner.split(":")[1])
        return next(name for name, s in self.servers.items() if s.process.pid == pid)


@contextmanager
def paired(folder: Path, postgres: Postgres) -> Iterator[Pair]:
    """Two servers on a fresh database behind HAProxy; afterwards, no process of theirs runs.
    Without HAProxy, the test fails saying how to get it (before anything starts)."""
    try:
        haproxy_bin()
    except RuntimeError as missing:
        pytest.fail(str(missing), pytrace=False)
    servers: dict[str, Served] = {}
    processes: set[int] = set()
    with postgres.database() as url:
        try:
            for name in ("one", "two"):
                servers[name] = serve(folder, url, name)
            ports = {name: int(s.url.split(":")[2].split("/")[0]) for name, s in servers.items()}
            with balancing(ports, folder / "haproxy") as balancer:
                pair = Pair(balancer, servers, ports, url, processes=processes)
                yield pair
        finally:
            Pair.remember(servers, processes)
            for served in servers.values():
                stop(served)
    left = all_gone(sorted(processes), within_s=15)
    assert not left, f"processes left running: {left}"


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, postgres: Postgres) -> Iterator[Pair]:
    """Shared by the tests that leave both servers up."""
    with paired(tmp_path_factory.mktemp("balanced"), postgres) as pair:
        yield pair


@pytest.fixture
def own_pair(tmp_path: Path, postgres: Postgres) -> Iterator[Pair]:
    """For a test that kills a server."""
    with paired(tmp_path, postgres) as pair:
        yield pair


@asynccontextmanager
async def through(pair: Pair, url: str | None = None, mode: str = "auto") -> AsyncIterator[Client]:
    """A client of the balancer that notes which server answered each of its requests, in
    order: each request goes to the server after the one that answered the request before."""

    async def note(response: httpx2.Response) -> None:
        asked = json.loads(response.request.content or b"{}")
        what = str(asked.get("method", response.request.method))
        if what == "tools/call":
            what = str(asked["params"]["name"])
        pair.answered.append((what, response.headers.get(HEADER, "")))

    pair.answered.clear()
    async with (
        httpx2.AsyncClient(timeout=60, event_hooks={"response": [note]}) as http,
        Client(
            streamable_http_client(url or pair.balancer.url, http_client=http), mode=mode
        ) as client,
    ):
        await client.list_tools()  # once: no call of a new tool is followed by a listing
        yield client


async def start(client: Client, urls: list[str]) -> str:
    answer = await call(
        client,
        "run_task_template",
        templateId="batch_extract_pages",
        inputs={"urls": urls, "waitFor": 1},
        options={"mode": "async"},
    )
    assert answer["status"] == "queued", answer
    return str(answer["runId"])


async def follow(
    client: Client, run_id: str, *statuses: str, seconds: float = 60
) -> dict[str, Any]:
    """Poll the run until it is in one of `statuses`."""
    with anyio.fail_after(seconds):
        while True:
            run = await call(client, "get_task_run", runId=run_id)
            if run["status"] in statuses:
                return run
            await anyio.sleep(0.05)


async def pages_held(site: FixtureServer, prefix: str) -> None:
    """Wait until the run has pages in flight (held at their gates)."""
    with anyio.fail_after(60):
        while not any(name.startswith(prefix) for name in list(site.waiting)):
            await anyio.sleep(0.02)


def gates(site: FixtureServer, prefix: str) -> list[str]:
    return [site.url(f"/gate?n={prefix}{i}") for i in range(PAGES)]


def open_gates(site: FixtureServer, prefix: str) -> None:
    for i in range(PAGES):
        site.open_gate(f"{prefix}{i}")


async def test_a_run_is_followed_to_its_end_with_each_poll_on_the_other_server(
    pair: Pair, site: FixtureServer
) -> None:
    urls = [site.url(f"/item?n={i}") for i in range(PAGES)]
    async with through(pair) as client:
        run_id = await start(client, urls)
        run = await follow(client, run_id, *ENDED)
    assert run["status"] == "succeeded", run
    assert run["result"]["summary"]["succeeded"] == PAGES, run["result"]["summary"]
    assert [item["title"] for item in run["result"]["items"]] == [f"Item {i}" for i in range(PAGES)]
    polls = pair.answers_to("get_task_run")
    assert len(polls) >= 4, polls
    assert set(polls) == {"one", "two"}
    assert all(a != b for a, b in itertools.pairwise(polls)), polls
    print(f"{len(polls)} polls, each on the other server: {' '.join(polls[:6])} …")


async def test_a_cancel_reaching_the_server_that_does_not_run_it_stops_the_run(
    pair: Pair, site: FixtureServer
) -> None:
    async with through(pair) as client:
        run_id = await start(client, gates(site, "c"))
        await pages_held(site, "c")
        owner = await pair.owner_of(run_id)
        other = next(name for name in pair.servers if name != owner)
        await follow(client, run_id, "running")
        if pair.answered[-1][1] != owner:  # round-robin: the next request goes to the other
            await follow(client, run_id, "running")
        cancel = await call(client, "cancel_task_run", runId=run_id)
        assert pair.answered[-1] == ("cancel_task_run", other), pair.answered[-1]
        assert cancel["cancelRequested"] is True, cancel
        open_gates(site, "c")  # the pages in flight end; no other starts
        run = await follow(client, run_id, *ENDED)
    assert run["status"] == "canceled", run
    asked = [p for p in list(site.traffic.paths) if p == "/gate"]
    assert len(asked) < PAGES, "the run read every page after it was canceled"


async def test_killing_the_server_that_runs_it_fails_the_run_seen_from_the_survivor(
    own_pair: Pair, site: FixtureServer
) -> None:
    pair = own_pair
    async with through(pair) as client:
        run_id = await start(client, gates(site, "k"))
        await pages_held(site, "k")
        doomed = pair.servers[await pair.owner_of(run_id)]
        survivor = next(name for name, s in pair.servers.items() if s is not doomed)
        pair.remember_processes()  # its browser outlives it unless the server's end takes it along
        os.kill(doomed.process.pid, signal.SIGKILL)
        end(doomed.process)
        seen = len(pair.answered)
        try:
            run = await follow(client, run_id, *ENDED)
        finally:
            open_gates(site, "k")
    assert run["status"] == "failed", run
    assert run["error"]["errorCode"] == "RUN_INTERRUPTED", run
    assert {server for _, server in pair.answered[seen:]} == {survivor}


async def test_a_session_call_reaching_the_server_that_does_not_hold_it_says_so(
    pair: Pair, site: FixtureServer
) -> None:
    async with through(pair) as client:
        sid = (await call(client, "create_session"))["sessionId"]
        holder = pair.answers_to("create_session")[-1]
        url = site.url("/article.html")
        answers = [await call(client, "navigate", sessionId=sid, url=url) for _ in range(2)]
        by = dict(zip(pair.answers_to("navigate"), answers, strict=True))
        missed = by[next(name for name in pair.servers if name != holder)]
        assert missed["isError"] and missed["errorCode"] == "SESSION_NOT_FOUND", missed
        assert missed["details"] == {"sessionId": sid, "cause": "another_server"}, missed
        assert "held by another server" in missed["error"] and "sticky" in missed["recoverHint"]
        assert not by[holder]["isError"] and by[holder]["title"], by[holder]
        closed = [await call(client, "close_session", sessionId=sid) for _ in range(2)]
        assert sorted(a["isError"] for a in closed) == [False, True], closed
        after = [await call(client, "navigate", sessionId=sid, url=url) for _ in range(2)]
        never = await call(client, "navigate", sessionId="ses_nope", url=url)
    assert sorted(a["details"]["cause"] for a in after) == ["another_server", "closed"], after
    assert never["errorCode"] == "SESSION_NOT_FOUND" and never["details"]["cause"] == "unknown"


async def test_a_2025_client_works_behind_a_balancer_sticky_on_its_mcp_session(
    pair: Pair, tmp_path: Path
) -> None:
    """A 2025-11-25 client's MCP session lives in the server that answered `initialize`:
    without stickiness the other server answers `Session not found`; sticky on
    `Mcp-Session-Id` (the configuration docs/mcp.md shows), every request after it reaches that
    server."""
    with balancing(pair.ports, tmp_path / "sticky", sticky=True) as sticky:
        async with through(pair, sticky.url, mode="legacy") as client:
            for _ in range(4):
                listed = await call(client, "list_task_runs", limit=1)
                assert not listed["isError"], listed
    after_initialize = [server for what, server in pair.answered if what != "initialize"]
    assert len(after_initialize) >= 5 and len(set(after_initialize)) == 1, pair.answered
    async with Client(pair.balancer.url, mode="legacy") as client:  # round-robin, not sticky
        with pytest.raises(MCPError, match="Session not found"):
            for _ in range(2):  # one of two reaches the server that did not answer initialize
                await client.call_tool("list_task_runs", {"limit": 1})


def test_the_documented_configuration_is_the_tested_one() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Behind a load balancer") :]
    block = section[section.index("```haproxy\n") + len("```haproxy\n") :].split("```")[0]
    assert block == configuration(8080, {"one": 8765, "two": 8766})
    assert all(f"`{line}`" in section for line in STICKY)


def test_a_missing_haproxy_fails_the_test_saying_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TASKPLATE_HAPROXY", str(tmp_path / "haproxy"))
    with pytest.raises(RuntimeError, match=r"is no executable\. .*`make bootstrap`"):
        haproxy_bin()
    monkeypatch.delenv("TASKPLATE_HAPROXY")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(haproxy, "SBIN", str(tmp_path))
    with (  # a failure, never a skip; before anything starts (no database, no server)
        pytest.raises(pytest.fail.Exception, match="apt-get install haproxy"),
        paired(tmp_path, cast(Postgres, None)),
    ):
        pass


def test_the_documented_session_error_is_the_one_given() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Behind a load balancer") :]
    shown = json.loads(section[section.index("```json\n") + 8 :].split("```")[0])
    sid = shown["details"]["sessionId"]
    here = Sessions(cast(BrowserRuntime, None))
    assert sid.startswith("ses_") and len(sid.split("_")[1]) == len(here.mark)
    assert shown == here.not_here(sid).to_json()
