"""Two `dsl serve --transport http` on one PostgreSQL behind a real HAProxy (round-robin, no
stickiness), driven by one 2026-07-28 client through it (each request on its own, no MCP session):
a 200-page run started as an MCP task (the extension `io.modelcontextprotocol/tasks`: a task handle,
`tasks/get` carrying the result once terminal) is followed to its end with every `tasks/get`
answered by the other server than the one before; a `tasks/cancel` reaching the server that does
not run it cancels the task; killing the server that runs it leaves the task to the survivor,
which resumes its run and completes it (#55). taskplate's own `cancel_task_run` stops a run gracefully
from the other server too. A browser session lives in the memory of the server that opened it: a
call that reaches the other server gets SESSION_NOT_FOUND saying so. No process is left afterwards.
Every tasks answer is checked against the published Tasks schemas (as in test_tasks.py)."""

from __future__ import annotations

import itertools
import json
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
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
from taskplate.server import KEEP_ALIVE_S
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
from tests.server.test_scale_out import until as follow
from tests.server.test_tasks import EXTENSION, conforms, declaring, result
from tests.server.test_transports import call
from tests.server.wire import MODERN, HttpWire

pytestmark = pytest.mark.anyio

PAGES = 200
ENDED = ("succeeded", "failed", "canceled")
TASK_ENDED = ("completed", "failed", "cancelled")
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
def paired(folder: Path, postgres: Postgres, env: dict[str, str] | None = None) -> Iterator[Pair]:
    """Two servers on a fresh database behind HAProxy (`env`: more of their environment);
    afterwards, no process of theirs runs. Without HAProxy, the test fails saying how to get it
    (before anything starts)."""
    try:
        haproxy_bin()
    except RuntimeError as missing:
        pytest.fail(str(missing), pytrace=False)
    servers: dict[str, Served] = {}
    processes: set[int] = set()
    with postgres.database() as url:
        try:
            for name in ("one", "two"):
                servers[name] = serve(folder, url, name, more_env=env)
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


def noting(pair: Pair) -> Callable[[httpx2.Response], Awaitable[None]]:
    """An httpx response hook that notes which server answered each request, in order."""

    async def note(response: httpx2.Response) -> None:
        asked = json.loads(response.request.content or b"{}")
        what = str(asked.get("method", response.request.method))
        if what == "tools/call":
            what = str(asked["params"]["name"])
        pair.answered.append((what, response.headers.get(HEADER, "")))

    return note


@asynccontextmanager
async def through(pair: Pair, url: str | None = None, mode: str = "auto") -> AsyncIterator[Client]:
    """A client of the balancer that notes which server answered each of its requests, in
    order: each request goes to the server after the one that answered the request before."""
    pair.answered.clear()
    async with (
        httpx2.AsyncClient(timeout=60, event_hooks={"response": [noting(pair)]}) as http,
        Client(
            streamable_http_client(url or pair.balancer.url, http_client=http), mode=mode
        ) as client,
    ):
        await client.list_tools()  # once: no call of a new tool is followed by a listing
        yield client


@asynccontextmanager
async def tasking(pair: Pair) -> AsyncIterator[HttpWire]:
    """A 2026-07-28 client of the balancer speaking MCP Tasks (raw JSON-RPC, as test_tasks.py
    does), noting which server answered each request; it has discovered the extension."""
    pair.answered.clear()
    async with httpx2.AsyncClient(timeout=60, event_hooks={"response": [noting(pair)]}) as http:
        wire = HttpWire(http, pair.balancer.url, MODERN)
        discovered = result(await wire.start())
        assert EXTENSION in discovered["capabilities"]["extensions"], discovered
        yield wire


async def start_task(wire: HttpWire, urls: list[str]) -> dict[str, Any]:
    """A batch_extract_pages of `urls` from a client that declared the Tasks extension: long
    (its asyncWhen), so answered with a task handle whose id is the run id."""
    params = {
        "name": "run_task_template",
        "arguments": {"templateId": "batch_extract_pages", "inputs": {"urls": urls, "waitFor": 1}},
        "_meta": declaring(),
    }
    handle = result(await wire.request("tools/call", params))
    assert handle["resultType"] == "task" and handle["status"] == "working", handle
    assert handle["taskId"].startswith("run_"), handle
    return handle


async def task_until(
    wire: HttpWire, task_id: str, *statuses: str, seconds: float = 60
) -> dict[str, Any]:
    """tasks/get until the task has one of `statuses`, asking again after the pollIntervalMs
    each answer gives (bounded)."""
    with anyio.fail_after(seconds):
        while True:
            asked = {"taskId": task_id, "_meta": declaring()}
            task = result(await wire.request("tasks/get", asked))
            if task["status"] in statuses:
                return task
            await anyio.sleep(task["pollIntervalMs"] / 1000)


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


async def run_of(wire: HttpWire, run_id: str) -> dict[str, Any]:
    """get_task_run of the run, over the tasks client: the task's run is a run like any."""
    params = {"name": "get_task_run", "arguments": {"runId": run_id}}
    run: dict[str, Any] = result(await wire.request("tools/call", params))["structuredContent"]
    return run


async def all_items(wire: HttpWire, answer: dict[str, Any]) -> list[dict[str, Any]]:
    """A run answer's items, with the pages of them that did not fit its answer read by their
    cursor (200 pages' items take more than one answer's budget)."""
    items, page = list(answer["result"]["items"]), answer.get("resultPage")
    while page and page["nextCursor"]:
        args = {"runId": answer["runId"], "cursor": page["nextCursor"]}
        params = {"name": "get_task_run", "arguments": args}
        more = result(await wire.request("tools/call", params))["structuredContent"]
        items += more["result"]["items"]
        page = more["resultPage"]
    return items


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


async def test_a_task_is_followed_to_its_end_with_each_tasks_get_on_the_other_server(
    pair: Pair, site: FixtureServer
) -> None:
    urls = [site.url(f"/item?n={i}") for i in range(PAGES)]
    async with tasking(pair) as wire:
        handle = await start_task(wire, urls)
        task_id = handle["taskId"]
        working = await task_until(wire, task_id, "working")
        done = await task_until(wire, task_id, *TASK_ENDED, seconds=120)
        # the run is the task: get_task_run reads the same run on either server
        runs = [await run_of(wire, task_id) for _ in range(2)]
        answer = done["result"]["structuredContent"]
        items = await all_items(wire, answer)
    assert done["status"] == "completed", done
    assert answer["runId"] == task_id and answer["status"] == "succeeded", answer
    assert answer["result"]["summary"]["succeeded"] == PAGES, answer["result"]["summary"]
    titles = [item["title"] for item in items]
    assert titles == [f"Item {i}" for i in range(PAGES)]
    polls = pair.answers_to("tasks/get")
    assert len(polls) >= 4, polls
    assert set(polls) == {"one", "two"}
    assert all(a != b for a, b in itertools.pairwise(polls)), polls
    assert set(pair.answers_to("get_task_run")) == {"one", "two"}
    for run in runs:
        assert run["status"] == "succeeded", run
        assert run["result"]["summary"] == answer["result"]["summary"], run
    conforms(
        ("v2.CreateTaskResultV2Schema", handle),
        ("v2.GetTaskResultV2Schema", working),
        ("v2.GetTaskResultV2Schema", done),
    )
    print(f"{len(polls)} tasks/get, each on the other server: {' '.join(polls[:6])} …")


async def test_a_tasks_cancel_reaching_the_server_that_does_not_run_it_cancels_the_task(
    pair: Pair, site: FixtureServer
) -> None:
    before = site.traffic.paths.count("/gate")
    async with tasking(pair) as wire:
        task_id = (await start_task(wire, gates(site, "t")))["taskId"]
        try:
            await pages_held(site, "t")
            owner = await pair.owner_of(task_id)
            other = next(name for name in pair.servers if name != owner)
            await task_until(wire, task_id, "working")
            if pair.answered[-1][1] != owner:  # round-robin: the next request goes to the other
                await task_until(wire, task_id, "working")
            cancel = {"taskId": task_id, "_meta": declaring()}
            canceled = result(await wire.request("tasks/cancel", cancel))
            assert pair.answered[-1] == ("tasks/cancel", other), pair.answered[-1]
            gone = await task_until(wire, task_id, *TASK_ENDED)
            pages_asked = site.traffic.paths.count("/gate") - before
        finally:
            open_gates(site, "t")  # the held requests end (their pages are closed)
    assert gone["status"] == "cancelled", gone
    assert "result" not in gone and "error" not in gone, gone
    assert pages_asked < PAGES, "the run asked for every page although its task was cancelled"
    conforms(("v2.CancelTaskResultV2Schema", canceled), ("v2.GetTaskResultV2Schema", gone))


async def test_a_cancel_reaching_the_server_that_does_not_run_it_stops_the_run(
    pair: Pair, site: FixtureServer
) -> None:
    """taskplate's own cancel_task_run, graceful (tasks/cancel forces): the pages in flight end
    and no other starts, the owner told through the store by the other server."""
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


async def test_killing_the_server_that_runs_a_task_resumes_it_on_the_survivor(
    own_pair: Pair, site: FixtureServer
) -> None:
    """The survivor adopts the dead server's run (#55) and finishes it under the same task id:
    every page once in its result."""
    pair = own_pair
    async with tasking(pair) as wire:
        task_id = (await start_task(wire, gates(site, "k")))["taskId"]
        await pages_held(site, "k")
        doomed = pair.servers[await pair.owner_of(task_id)]
        survivor = next(name for name, s in pair.servers.items() if s is not doomed)
        pair.remember_processes()  # its browser outlives it unless the server's end takes it along
        os.kill(doomed.process.pid, signal.SIGKILL)
        end(doomed.process)
        seen = len(pair.answered)
        open_gates(site, "k")
        task = await task_until(wire, task_id, *TASK_ENDED, seconds=180)
        run = await run_of(wire, task_id)
        items = await all_items(wire, run)
    assert task["status"] == "completed", task
    assert run["status"] == "succeeded", run
    assert [i["url"] for i in items] == gates(site, "k"), run
    assert {server for _, server in pair.answered[seen:]} == {survivor}, pair.answered[seen:]
    conforms(("v2.GetTaskResultV2Schema", task))


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
    # docs: Idle connections. Each connection to a server is one client's, closed with it ...
    assert "    http-reuse never\n" in block
    # ... after `timeout client` idle: the server keeps an idle connection longer
    assert "    timeout client 120s\n" in block and "http-keep-alive" not in block
    assert KEEP_ALIVE_S > 120


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


async def test_a_callers_runs_are_its_own_on_every_server(
    tmp_path: Path, postgres: Postgres
) -> None:
    """Two remote tokens on both servers: what one starts is unknown to the other on either
    server (its principal is stored with the run, in the one database), its own on either."""
    alpha, beta = "alpha-token-0123456789abcdef", "beta-token-0123456789abcdef"
    tokens = {"TASKPLATE_TOKENS": f"{alpha} remote principal=alpha,{beta} remote"}
    with paired(tmp_path, postgres, tokens) as pair:
        pair.remember_processes()

        @asynccontextmanager
        async def as_caller(token: str) -> AsyncIterator[HttpWire]:
            headers = {"Authorization": f"Bearer {token}"}
            hooks = {"response": [noting(pair)]}
            async with httpx2.AsyncClient(timeout=60, headers=headers, event_hooks=hooks) as http:
                wire = HttpWire(http, pair.balancer.url, MODERN)
                wire.errors_answered = True
                await wire.start()
                yield wire

        async def tool(wire: HttpWire, name: str, **arguments: Any) -> dict[str, Any]:
            answer = result(
                await wire.request("tools/call", {"name": name, "arguments": arguments})
            )
            return cast(dict[str, Any], answer["structuredContent"])

        async with as_caller(alpha) as mine, as_caller(beta) as theirs:
            started = await tool(
                mine, "run_task_template", templateId="pause", inputs={"ms": 500},
                options={"mode": "async"},
            )  # fmt: skip
            run_id = started["runId"]
            pair.answered.clear()
            for _ in range(2):  # round robin: each request on the other server
                refused = await tool(theirs, "get_task_run", runId=run_id)
                assert refused["errorCode"] == "RUN_NOT_FOUND", refused
                assert refused["error"] == f"no run {run_id}"
                task = await theirs.request("tasks/get", {"taskId": run_id})
                assert task["error"]["code"] == -32602, task
                listed = await tool(theirs, "list_task_runs")
                assert listed == {"runs": [], "total": 0}
                assert (await tool(mine, "get_task_run", runId=run_id))["runId"] == run_id
            assert set(pair.answers_to("get_task_run")) == {"one", "two"}, pair.answered
            await tool(mine, "cancel_task_run", runId=run_id, force=True)
        async with open_store(tmp_path, pair.store_url) as store:
            row = await store.run(run_id)
        assert row is not None and row.principal == "alpha"
