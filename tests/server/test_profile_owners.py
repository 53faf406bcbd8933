"""Many principals on one `dsl serve --transport http --token-file`: a login profile (the default
`master` included) and a saved template are the principal's that made them. Another principal's
id answers exactly as one nobody made, on every path (`create_session`, `scrape` in the browser
and over HTTP, `run_task_template {profileId}`, `save_profile`, a run's own login published
back; template listing, reading, running and overwriting); the operator shares a profile by
naming principals in taskplate.toml, the only way one is shared; a principal's own profiles are
capped and unused ones expire."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.fixtures.postgres import Postgres
from tests.fixtures.server import FixtureServer
from tests.server.conftest import Served, start_http, stop
from tests.server.test_ownership import PROFILE_RULES, RESOURCE_RULES, TEMPLATE_RULES, Caller
from tests.server.wire import MODERN, HttpWire

pytestmark = pytest.mark.anyio
ALPHA = "alpha-token-0123456789abcdef"
BETA = "beta-token-0123456789abcdef"
GAMMA = "gamma-token-0123456789abcdef"
DELTA = "delta-token-0123456789abcdef"
OPERATOR = "operator-0123456789abcdef"
MOST = 3
SIGNED_IN, SIGNED_OUT = "Welcome back, member", "Sign in"
READ_PAGE = """\
template: read_members
version: 1.0.0
trust: [local, remote]
inputs:
  type: object
  required: [url]
  properties:
    url: {type: string}
steps:
  - action: navigate
    with: {url: "${{ inputs.url }}"}
  - id: read
    action: get_page_content
    with: {format: text, onlyMainContent: false}
output: "${{ steps.read.content }}"
"""


def setting(home: Path, toml: str) -> None:
    (home / "taskplate.toml").write_text(toml, encoding="utf-8")


def serving(home: Path, *more: str, env: dict[str, str] | None = None) -> Served:
    """A server of remote principals alpha to delta (one token each) and an operator
    token, allowed to reach the fixture site, with the read_members template."""
    tokens = home.parent / f"{home.name}.tokens"
    tokens.write_text(
        f"{ALPHA} remote principal=alpha\n{BETA} remote principal=beta\n"
        f"{GAMMA} remote principal=gamma\n{DELTA} remote principal=delta\n{OPERATOR} local\n",
        encoding="utf-8",
    )
    templates = home.parent / f"{home.name}-templates"
    templates.mkdir(exist_ok=True)
    (templates / "read_members.yaml").write_text(READ_PAGE, encoding="utf-8")
    return start_http(
        home,
        "--token-file",
        str(tokens),
        "--templates",
        str(templates),
        "--allow-remote-save",
        "--allow-host",
        "127.0.0.1",
        *more,
        env=env,
    )


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("owners") / "home"
    home.mkdir()
    setting(home, f'[profiles]\nmost = {MOST}\nshared = {{ team = ["alpha"] }}\n')
    return home


@pytest.fixture(scope="module")
def served(shared_home: Path) -> Iterator[Served]:
    served = serving(shared_home)
    yield served
    stop(served)


@asynccontextmanager
async def caller(url: str, token: str) -> AsyncIterator[Caller]:
    async with httpx2.AsyncClient(timeout=60, headers={"Authorization": f"Bearer {token}"}) as http:
        wire = HttpWire(http, url, MODERN)
        wire.errors_answered = True
        await wire.start()
        yield Caller(wire)


async def log_in(who: Caller, site: FixtureServer, profile: str | None) -> None:
    """A login in a run of `who`'s own: published to `profile` by save_profile, else (None)
    by the run's end, to the profile it started from (its default)."""
    steps: list[dict[str, Any]] = [
        {"id": "login", "action": "navigate", "with": {"url": site.url("/auto-login")}}
    ]
    if profile is not None:
        steps.append({"id": "keep", "action": "save_profile", "with": {"profileId": profile}})
    answer = await who.ok("run_steps", {"steps": steps})
    assert answer["status"] == "succeeded", answer


async def page_text(who: Caller, name: str, site: FixtureServer, profile: str | None) -> str:
    """/members as `who` reads it through `name` (a tool, or an engine of scrape), starting
    from `profile` (None: its default)."""
    url, named = site.url("/members"), {} if profile is None else {"profileId": profile}
    if name in ("browser", "http"):
        read = await who.tool("scrape", {"url": url, "engine": name, "format": "markdown", **named})
    elif name == "run_task_template":
        args = {"templateId": "read_members", "inputs": {"url": url}, **named}
        read = await who.tool(name, {**args, "options": {"mode": "sync"}})
    else:  # create_session: its tools read the page
        read = await who.tool("create_session", named)
        if not read.get("isError"):
            sid = read["structuredContent"]["sessionId"]
            await who.ok("navigate", {"sessionId": sid, "url": url})
            read = await who.tool("get_page_content", {"sessionId": sid, "format": "text"})
            await who.ok("close_session", {"sessionId": sid})
    return json.dumps(read)


PATHS = ("browser", "http", "run_task_template", "create_session")  # run_steps: log_in


def test_every_tool_the_ownership_table_names_is_probed_here() -> None:
    """test_ownership.py's table names whose profiles and templates each tool reaches; the
    tests below probe every one of them."""
    assert set(PROFILE_RULES) == {"scrape", "run_task_template", "create_session", "run_steps"}
    probed = {"list_task_templates", "run_task_template", "save_template", "list_task_runs"}
    assert set(TEMPLATE_RULES) == probed
    assert {k for k, rule in RESOURCE_RULES.items() if rule == "own"} == {"template://{ref}"}


VARYING = re.compile(  # what differs between any two runs or sessions: ids, times, durations
    r"(run|ses|art|tab)_[0-9A-Za-z_]+|\d{4}-\d\d-\d\dT[\d:.]+Z|elapsedMs[\\\"]*: \d+"
)


def alike(theirs: str, mine: str, never: str, fake: str) -> None:
    """Two answers the same but for the profile id they name (and the ids and times of the
    runs and sessions they made)."""
    assert VARYING.sub("_", theirs.replace(mine, "ID")) == VARYING.sub(
        "_", never.replace(fake, "ID")
    )


async def test_a_profile_is_its_principals_own_on_every_path(
    served: Served, site: FixtureServer
) -> None:
    async with (
        caller(served.url, ALPHA) as alpha,
        caller(served.url, BETA) as beta,
        caller(served.url, OPERATOR) as operator,
    ):
        await log_in(alpha, site, "a-prof")
        for path in PATHS:
            assert SIGNED_IN in await page_text(alpha, path, site, "a-prof"), path
            theirs = await page_text(beta, path, site, "a-prof")
            assert SIGNED_OUT in theirs, (path, theirs)
            alike(theirs, "a-prof", await page_text(beta, path, site, "b-never"), "b-never")
        # beta's save_profile of the same id keeps beta's login; alpha's stays alpha's
        alpha_state = served.home / "principals" / "alpha" / "profiles" / "a-prof" / "state.json"
        before = alpha_state.read_bytes()
        await log_in(beta, site, "a-prof")
        assert alpha_state.read_bytes() == before
        assert SIGNED_IN in await page_text(beta, "browser", site, "a-prof")
        # the operator's own profile of that name is another still
        assert SIGNED_OUT in await page_text(operator, "browser", site, "a-prof")
        assert not (served.home / "profiles" / "a-prof" / "state.json").exists() or SIGNED_OUT


async def test_a_runs_login_is_published_to_its_own_principals_default_profile(
    served: Served, site: FixtureServer
) -> None:
    async with (
        caller(served.url, ALPHA) as alpha,
        caller(served.url, DELTA) as delta,
        caller(served.url, OPERATOR) as operator,
    ):
        await log_in(alpha, site, None)  # no save_profile: the run's end publishes it
        assert SIGNED_IN in await page_text(alpha, "browser", site, None)
        assert SIGNED_IN in await page_text(alpha, "http", site, "master")
        for path in PATHS:
            assert SIGNED_OUT in await page_text(delta, path, site, None), path
            assert SIGNED_OUT in await page_text(operator, path, site, None), path
        operator_master = served.home / "profiles" / "master" / "state.json"
        assert "sid" not in operator_master.read_text() if operator_master.exists() else True


async def test_the_operator_shares_a_profile_with_the_principals_it_names(
    served: Served, site: FixtureServer
) -> None:
    async with (
        caller(served.url, ALPHA) as alpha,
        caller(served.url, DELTA) as delta,
        caller(served.url, OPERATOR) as operator,
    ):
        await log_in(operator, site, "team")
        for path in PATHS:
            assert SIGNED_IN in await page_text(alpha, path, site, "team"), path  # named
            assert SIGNED_OUT in await page_text(delta, path, site, "team"), path  # not named
        assert not (served.home / "principals" / "alpha" / "profiles" / "team").exists()


async def test_a_principals_own_profiles_are_capped_and_unused_ones_expire(
    served: Served, site: FixtureServer
) -> None:
    own = served.home / "principals" / "gamma" / "profiles"
    async with caller(served.url, GAMMA) as gamma, caller(served.url, DELTA) as delta:
        for index in range(MOST):
            sid = (await gamma.ok("create_session", {"profileId": f"g{index}"}))["sessionId"]
            await gamma.ok("close_session", {"sessionId": sid})
        refused = await gamma.tool("create_session", {"profileId": "g-more"})
        error = refused["structuredContent"]
        assert error["errorCode"] == "INVALID_PARAMETER", refused
        assert (
            error["error"]
            == f"profile g-more cannot be created: you have 3 profiles, at most {MOST}"
        )
        assert str(served.home) not in json.dumps(refused)
        for name in ("scrape", "run_task_template"):  # every path that names one counts
            args = {"url": site.url("/members"), "profileId": "g-more"}
            if name == "run_task_template":
                args = {
                    "templateId": "read_members",
                    "inputs": {"url": args["url"]},
                    "profileId": "g-more",
                }
            again = await gamma.tool(name, args)
            assert again["structuredContent"]["errorCode"] == "INVALID_PARAMETER", (name, again)
        assert sorted(p.name for p in own.iterdir() if p.is_dir()) == ["g0", "g1", "g2"]
        # a profile unused for longer than unused_days (30) goes before the next is counted
        old = time.time() - 31 * 86400
        os.utime(own / "g0", (old, old))
        sid = (await gamma.ok("create_session", {"profileId": "g-more"}))["sessionId"]
        await gamma.ok("close_session", {"sessionId": sid})
        assert sorted(p.name for p in own.iterdir() if p.is_dir()) == ["g-more", "g1", "g2"]
        # another principal's count is its own
        sid = (await delta.ok("create_session", {"profileId": "g-other"}))["sessionId"]
        await delta.ok("close_session", {"sessionId": sid})


async def save_from_run(who: Caller, steps: list[dict[str, Any]], **how: Any) -> dict[str, Any]:
    done = await who.ok("run_steps", {"steps": steps})
    return await who.tool("save_template", {"runId": done["runId"], **how})


async def test_a_saved_template_is_its_principals_own(served: Served, site: FixtureServer) -> None:
    article = site.url("/article.html?token=alpha-secret")
    async with (
        caller(served.url, ALPHA) as alpha,
        caller(served.url, BETA) as beta,
        caller(served.url, OPERATOR) as operator,
    ):
        navigate = [{"id": "open", "action": "navigate", "with": {"url": article}}]
        saved = await save_from_run(alpha, navigate, name="a_tpl")
        assert saved["structuredContent"]["path"] == "templates/a_tpl.yaml", saved
        assert str(served.home) not in json.dumps(saved)

        async def listed(who: Caller) -> set[str]:
            return {t["templateId"] for t in (await who.ok("list_task_templates", {}))["templates"]}

        assert "a_tpl" in await listed(alpha)
        assert "a_tpl" not in await listed(beta)
        assert "a_tpl" not in await listed(operator)  # the operator's list is the served one
        # running and reading it: answered as a template nobody saved
        for ask in (
            lambda name: beta.tool("run_task_template", {"templateId": name}),
            lambda name: beta.method("resources/read", {"uri": f"template://{name}@1.0.0"}),
        ):
            theirs, never = await ask("a_tpl"), await ask("never_tpl")
            theirs, never = theirs.get("error", theirs), never.get("error", never)  # JSON-RPC's
            assert "code" in theirs or theirs.get("isError"), theirs
            alike(json.dumps(theirs), "a_tpl", json.dumps(never), "never_tpl")
        resources = (await beta.method("resources/list", {}))["result"]["resources"]
        assert not [r for r in resources if r["uri"].startswith("template://a_tpl")]
        mine = await alpha.method("resources/read", {"uri": "template://a_tpl@1.0.0"})
        assert "alpha-secret" in mine["result"]["contents"][0]["text"]
        # beta's save of that name is beta's own, made as for a name nobody took
        setting = [{"id": "v", "action": "set", "with": {"a": 1}}]
        first = await save_from_run(beta, setting, name="a_tpl")
        assert not first.get("isError"), first
        again = await save_from_run(beta, setting, name="a_tpl")
        error = again["structuredContent"]
        assert error["errorCode"] == "INVALID_PARAMETER"
        assert error["error"] == 'you saved a template "a_tpl" already'  # no server path
        replaced = await save_from_run(beta, setting, name="a_tpl", overwrite=True)
        assert not replaced.get("isError"), replaced
        beta_text = (await beta.method("resources/read", {"uri": "template://a_tpl@1.0.0"}))[
            "result"
        ]["contents"][0]["text"]
        assert "alpha-secret" not in beta_text and "action: set" in beta_text
        # alpha's runs its own steps still
        ran = await alpha.ok("run_task_template", {"templateId": "a_tpl"})
        assert ran["status"] == "succeeded", ran
        assert "alpha-secret" in json.dumps(ran["result"])
        theirs = await beta.ok("run_task_template", {"templateId": "a_tpl"})
        assert "alpha-secret" not in json.dumps(theirs), theirs
        listed = await beta.ok("list_task_runs", {"templateId": "a_tpl"})
        assert [r["runId"] for r in listed["runs"]] == [theirs["runId"]]


async def test_logins_and_templates_stay_their_principals_across_servers_on_postgresql(
    tmp_path: Path, postgres: Postgres, site: FixtureServer
) -> None:
    """Two servers on one PostgreSQL store sharing one data home (docs/scaling.md: profiles
    shared on a shared file system): what alpha makes on one is alpha's on the other, and
    unknown to beta on either."""
    home = tmp_path / "home"
    home.mkdir()
    with postgres.database() as url:
        servers = [serving(home, env={"TASKPLATE_STORE": url}) for _ in range(2)]
        try:
            one, two = servers
            async with (
                caller(one.url, ALPHA) as alpha_one,
                caller(two.url, ALPHA) as alpha_two,
                caller(two.url, BETA) as beta_two,
            ):
                await log_in(alpha_one, site, "a-prof")
                await log_in(alpha_one, site, None)  # and its default profile
                for path in PATHS:
                    assert SIGNED_IN in await page_text(alpha_two, path, site, "a-prof"), path
                    theirs = await page_text(beta_two, path, site, "a-prof")
                    assert SIGNED_OUT in theirs, (path, theirs)
                    never = await page_text(beta_two, path, site, "b-never")
                    alike(theirs, "a-prof", never, "b-never")
                    assert SIGNED_OUT in await page_text(beta_two, path, site, None), path
                steps = [{"id": "v", "action": "set", "with": {"a": 1}}]
                saved = await save_from_run(alpha_one, steps, name="a_tpl")
                assert not saved.get("isError"), saved
                ran = await alpha_two.ok("run_task_template", {"templateId": "a_tpl"})
                assert ran["status"] == "succeeded", ran
                theirs_run = await beta_two.tool("run_task_template", {"templateId": "a_tpl"})
                never_run = await beta_two.tool("run_task_template", {"templateId": "never_tpl"})
                alike(json.dumps(theirs_run), "a_tpl", json.dumps(never_run), "never_tpl")
        finally:
            for served in servers:
                stop(served)
