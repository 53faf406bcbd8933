"""Shared test configuration: anyio on asyncio for async tests, the fixture site, and a real
Chromium per test module (launched through Playwright, closed when the module's tests end)."""

from __future__ import annotations

import inspect
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import jsonschema
import pytest
import sniffio

from taskplate.browser import BrowserConfig, BrowserRuntime, Sessions, UrlPolicy
from taskplate.contract import TrustLevel
from taskplate.stdlib import REGISTRY, run_action
from taskplate.stdlib._context import ActionContext, MemoryArtifacts
from taskplate.stdlib.content._conversion import conversion_workers
from tests.fixtures.postgres import Postgres, pg_bin, running_postgres
from tests.fixtures.server import FixtureServer, serve
from tests.fixtures.watchdog import watching

# The suite's `dsl serve` processes serve every tool group (their tests call run_steps,
# evaluate, …); tests/server/test_tool_groups.py serves the default set, without it.
os.environ.setdefault("TASKPLATE_TOOLS", "all")

PUBLIC_HOST = (
    "public.test"  # resolves "publicly" for the URL policy, to the fixture site for Chromium
)

NOWHERE_HOST = "nowhere.test"  # a name Chromium cannot resolve: ERR_NAME_NOT_RESOLVED


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    with watching(item.nodeid, capture=item.config.pluginmanager.getplugin("capturemanager")):
        return (yield)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _sync_tests_run_outside_any_event_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """A plain test runs where no event loop is, so it may call `anyio.run` (as `dsl run` does
    through click's CliRunner). While an async fixture of a wider scope lives, anyio's pytest
    plugin names "asyncio" as the thread's library through sniffio, and `anyio.run` would refuse
    with "Already running asyncio in this thread"; the test is told the truth instead."""
    if inspect.iscoroutinefunction(request.function):
        yield
        return
    token = sniffio.current_async_library_cvar.set(None)
    try:
        yield
    finally:
        sniffio.current_async_library_cvar.reset(token)


@pytest.fixture(scope="session")
def site() -> Iterator[FixtureServer]:
    with serve() as server:
        yield server


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """A real PostgreSQL (Debian's package) for the whole session; `postgres.database()` gives
    each test a fresh database. Missing, it fails with the way to install it."""
    try:
        pg_bin()
    except RuntimeError as missing:
        pytest.fail(str(missing), pytrace=False)
    with running_postgres() as server:
        yield server


@pytest.fixture(scope="module")
async def runtime(site: FixtureServer) -> AsyncIterator[BrowserRuntime]:
    port = site.server_address[1]
    rules = f"--host-resolver-rules=MAP {PUBLIC_HOST} 127.0.0.1:{port}, MAP private.test 127.0.0.1:{port}, MAP {NOWHERE_HOST} ~NOTFOUND, MAP ads.doubleclick.net 127.0.0.1:{port}"
    rt = BrowserRuntime(BrowserConfig(extra_args=(rules,)))
    yield rt
    await rt.close()


@pytest.fixture(scope="module")
async def conversion_worker() -> AsyncIterator[None]:
    """One Markdown conversion worker for a module's run managers, as `dsl serve` keeps one for
    all its runs: each manager's own `conversion_workers()` block nests in this one, so a test
    does not spawn an interpreter that imports lxml and trafilatura only to end it. Conversions
    are pure functions of their arguments: nothing passes from one test to the next (the
    worker's own life is tested where a manager owns it, tests/interpreter/test_conversion_workers.py)."""
    async with conversion_workers():
        yield


def fake_dns(host: str) -> list[str]:
    """Public for public.test, private for private.test, the real answer for anything else."""
    from taskplate.browser import system_resolver

    return {"public.test": ["93.184.216.34"], "private.test": ["10.1.2.3"]}.get(
        host
    ) or system_resolver(host)


@pytest.fixture
async def sessions(runtime: BrowserRuntime) -> AsyncIterator[Sessions]:
    registry = Sessions(runtime)
    yield registry
    await registry.close_all()
    assert registry.open_tabs == 0, "a test left tabs open"


@pytest.fixture
async def ctx(sessions: Sessions) -> ActionContext:
    session = await sessions.create()
    return ActionContext(session=session, artifacts=MemoryArtifacts())


@pytest.fixture
async def remote_ctx(sessions: Sessions) -> ActionContext:
    policy = UrlPolicy(TrustLevel.REMOTE, resolver=fake_dns)
    session = await sessions.create(policy=policy)
    return ActionContext(session=session, trust=TrustLevel.REMOTE, artifacts=MemoryArtifacts())


async def act(action: str, ctx: ActionContext, /, **args: Any) -> Any:
    """Run an action as the interpreter does, and check its result against its schema."""
    result = await run_action(action, ctx, args)
    jsonschema.validate(result, REGISTRY[action].result_schema)
    return result


def login_inputs(site: FixtureServer, **extra: Any) -> dict[str, Any]:
    """login_keep_session's inputs for the fixture site's login form, right password included."""
    from tests.fixtures.server import PASSWORD

    return {
        "loginUrl": site.url("/login"),
        "checkUrl": site.url("/members"),
        "username": "ada",
        "password": PASSWORD,
        "successSelector": "#welcome",
        **extra,
    }
