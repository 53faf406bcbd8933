"""Many callers on one `dsl serve --transport http`: a run, its steps, artifacts, task, open
questions and browser sessions are the caller's that started them (its bearer token's principal),
on 2025-11-25 sessions and stateless 2026-07-28 calls alike. Another caller's id is answered
exactly as an unknown one; an operator (local) token sees all.

`RULES` gives every tool the server lists, and every tasks method, its ownership rule, and a
test fails when a tool or method has none: a tool added later must say whose ids it takes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx2
import pytest
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.shared.exceptions import MCPError

from taskplate.interpreter import RunManager, new_run_id
from taskplate.server._state import ServerState
from taskplate.server._task_cursor import cursor_after, read_cursor
from taskplate.server._tasks import LIST_PAGE, ListParams, Tasks
from tests.fixtures.server import FixtureServer
from tests.server.conftest import Served, start_http, stop
from tests.server.test_human import TEMPLATES as HUMAN
from tests.server.test_protocol_versions import tour
from tests.server.test_tasks import declaring
from tests.server.wire import MODERN, HttpWire

pytestmark = pytest.mark.anyio
LEGACY = "2025-11-25"
ALPHA_1 = "alpha-one-0123456789abcdef"
ALPHA_2 = "alpha-two-0123456789abcdef"
BETA = "beta-token-0123456789abcdef"
OPERATOR = "operator-0123456789abcdef"

# Every tool's ownership rule: "run", "artifact", "session" (the ids it takes are its caller's
# own, another's answered as unknown), "lists" (its caller's own only), "creates" (what it
# makes is its caller's), "shared" (takes no caller's id), "local_only" (refused to every remote
# caller, whatever the id).
PAGE_ACTIONS = (
    "navigate", "wait_for_stable", "get_page_info", "get_page_content", "snapshot", "fill",
    "select_option", "press", "click", "evaluate", "screenshot", "create_tab", "close_tab",
)  # fmt: skip
RULES: dict[str, str] = {
    "get_runtime_profile": "shared",
    "list_task_templates": "shared",
    "scrape": "shared",  # a session of its own, closed before it answers
    "run_task_template": "session",  # sessionId; its run is its caller's (the run rule)
    "run_steps": "session",
    "get_task_run": "run",
    "list_task_runs": "lists",
    "cancel_task_run": "run",
    "resume_task_run": "run",
    "get_artifact": "artifact",
    "create_session": "creates",
    "close_session": "session",
    "list_sessions": "lists",
    "list_tabs": "session",
    "save_template": "session",
    **dict.fromkeys(PAGE_ACTIONS, "session"),
    "evaluate": "local_only",  # host access: refused to remote callers before any id is read
}
# Every tool that reaches a login profile by its id (`profileId`, or a step such as save_profile
# that names one, and the run's login published back): "own" (a remote caller's own profiles and
# those the operator shares with it; another's id answered as an unknown one). Probed tool by
# tool in test_profile_owners.py.
PROFILE_RULES = {
    "create_session": "own",
    "scrape": "own",
    "run_task_template": "own",
    "run_steps": "own",
}
# Every tool that takes a template's id: "own" (the served templates and the caller's own saved
# ones; another's answered as an unknown one), "lists" (those same, never another's).
TEMPLATE_RULES = {
    "list_task_templates": "lists",
    "run_task_template": "own",
    "save_template": "own",  # its name: a remote caller saves into its own
    "list_task_runs": "lists",  # its own runs, of a template id if it names one
}
# Every resource template: whose its address reaches.
RESOURCE_RULES = {"artifact://{artifact_id}": "artifact", "template://{ref}": "own"}
# Every tasks method: the task id is its caller's (-32602 as for an unknown id), or a list of its own.
TASK_RULES = {
    "tasks/get": "task",
    "tasks/result": "task",
    "tasks/cancel": "task",
    "tasks/update": "task",
    "tasks/list": "lists",
}


@pytest.fixture(scope="module")
def served(home: Path) -> Any:
    tokens = home.parent / "owners.tokens"
    tokens.write_text(
        f"{ALPHA_1} principal=alpha\n{ALPHA_2} principal=alpha\n{BETA}\n{OPERATOR} local\n",
        encoding="utf-8",
    )
    served = start_http(
        home, "--token-file", str(tokens), "--templates", str(HUMAN), "--allow-remote-save"
    )
    yield served
    stop(served)


@dataclass
class Caller:
    wire: HttpWire

    async def tool(self, name: str, arguments: dict[str, Any], **meta: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if meta:
            params["_meta"] = meta
        answer = await self.wire.request("tools/call", params)
        assert "result" in answer, (name, answer)
        result: dict[str, Any] = answer["result"]
        return result

    async def ok(self, name: str, arguments: dict[str, Any], **meta: Any) -> dict[str, Any]:
        result = await self.tool(name, arguments, **meta)
        assert not result.get("isError"), (name, result)
        content: dict[str, Any] = result.get("structuredContent") or result
        return content

    async def method(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.wire.request(name, params)


@asynccontextmanager
async def caller(served: Served, token: str, version: str) -> AsyncIterator[Caller]:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(timeout=60, headers=headers) as http:
        wire = HttpWire(http, served.url, version)
        wire.errors_answered = True
        await wire.start()
        yield Caller(wire)


def same_as_unknown(theirs: dict[str, Any], mine: str, never: dict[str, Any], fake: str) -> None:
    """Two answers alike but for the id they name."""
    assert json.dumps(theirs).replace(mine, "ID") == json.dumps(never).replace(fake, "ID")


@dataclass
class Owned:
    """What caller alpha made: a session (with a tab), an artifact, a run, a task."""

    session: str
    artifact: str
    run: str
    task: str


async def made_by(alpha: Caller) -> Owned:
    session = (await alpha.ok("create_session", {}))["sessionId"]
    artifact = (await alpha.ok("screenshot", {"sessionId": session}))["artifactId"]
    slow = {"templateId": "pause", "inputs": {"ms": 800}, "options": {"mode": "async"}}
    run = (await alpha.ok("run_task_template", slow))["runId"]
    task = (await alpha.ok("run_task_template", slow))["runId"]
    return Owned(session, artifact, run, task)


def arguments_of(site: FixtureServer) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """Each tool's arguments naming the ids in `seen` (the protocol tests' tour of every tool)."""
    given = dict(tour(site))
    given["run_task_template"] = lambda seen: {
        "templateId": "pause",
        "sessionId": seen["create_session"]["sessionId"],
    }
    return given


def seen_of(owned: Owned) -> dict[str, Any]:
    return {
        "create_session": {"sessionId": owned.session},
        "create_tab": {"tabId": "tab_1"},
        "run_task_template": {"runId": owned.run},
        "screenshot": {"artifactId": owned.artifact},
    }


def faked(owned: Owned) -> Owned:
    """Ids of the same forms that nobody made."""
    return Owned(owned.session[:-6] + "zzzzzz", "art_" + "0" * 20, new_run_id(), new_run_id())


async def probe(beta: Caller, tool: str, owned: Owned, site: FixtureServer) -> None:
    """`tool` called by beta with alpha's ids answers as with ids nobody made."""
    rule, fake = RULES[tool], faked(owned)
    arguments = arguments_of(site)
    if rule in ("run", "artifact", "session", "local_only"):
        rule = "session" if rule == "local_only" else rule
        mine = {"run": owned.run, "artifact": owned.artifact, "session": owned.session}[rule]
        never = {"run": fake.run, "artifact": fake.artifact, "session": fake.session}[rule]
        theirs = await beta.tool(tool, arguments[tool](seen_of(owned)))
        unknown = await beta.tool(tool, arguments[tool](seen_of(fake)))
        code = {"run": "RUN_NOT_FOUND", "artifact": "ARTIFACT_NOT_FOUND"}.get(
            rule, "SESSION_NOT_FOUND" if RULES[tool] == "session" else "TRUST_LEVEL_NOT_ALLOWED"
        )
        assert theirs.get("isError") and theirs["structuredContent"]["errorCode"] == code, (
            tool,
            theirs,
        )
        same_as_unknown(theirs, mine, unknown, never)
    elif tool == "list_task_runs":
        listed = await beta.ok(tool, {"limit": 100})
        assert not {owned.run, owned.task} & {r["runId"] for r in listed["runs"]}, listed
    elif tool == "list_sessions":
        listed = await beta.ok(tool, {})
        assert owned.session not in {s["sessionId"] for s in listed["sessions"]}, listed


async def test_every_tool_and_method_has_an_ownership_rule(served: Served) -> None:
    async with caller(served, BETA, MODERN) as beta:
        listed = (await beta.method("tools/list", {}))["result"]["tools"]
    assert {t["name"] for t in listed} == set(RULES), "every tool says whose ids it takes"
    methods = {binding.method for binding in Tasks(None, {}).methods()}  # type: ignore[arg-type]
    assert methods == set(TASK_RULES), "every tasks method says whose tasks it reaches"


def takes(tool: dict[str, Any], *marks: str) -> bool:
    """Whether a listed tool's input schema names any of `marks` (a property, a description)."""
    schema = json.dumps(tool["inputSchema"]).lower()
    return any(mark.lower() in schema for mark in marks)


async def test_every_tool_taking_a_profile_or_template_id_has_a_rule(served: Served) -> None:
    """A tool added later that takes a profile's or a template's id (or runs steps, which can
    name a profile) fails here until it says whose it reaches."""
    async with caller(served, BETA, MODERN) as beta:
        listed = (await beta.method("tools/list", {}))["result"]["tools"]
        resources = (await beta.method("resources/templates/list", {}))["result"]
    profiles = {t["name"] for t in listed if takes(t, '"profileId"', '"steps"')}
    assert profiles == set(PROFILE_RULES), "every tool reaching a profile says whose"
    templates = {t["name"] for t in listed if takes(t, '"templateId"', "template id")}
    templates |= {"list_task_templates"}  # lists them: takes none
    assert templates == set(TEMPLATE_RULES), "every tool taking a template id says whose"
    addresses = {r["uriTemplate"] for r in resources["resourceTemplates"]}
    assert addresses == set(RESOURCE_RULES), "every resource template says whose it reaches"


@pytest.fixture
async def sessions_closed_after(served: Served) -> AsyncIterator[None]:
    """Every session closed after the test, passed or failed: the server is the module's, and a
    session left open would be listed by the next test's caller."""
    yield
    async with caller(served, OPERATOR, MODERN) as operator:
        for each in (await operator.ok("list_sessions", {}))["sessions"]:
            await operator.ok("close_session", {"sessionId": each["sessionId"]})


@pytest.mark.parametrize("version", [MODERN, LEGACY])
@pytest.mark.usefixtures("sessions_closed_after")
async def test_another_callers_ids_are_unknown_to_every_tool(
    served: Served, site: FixtureServer, version: str
) -> None:
    async with (
        caller(served, ALPHA_1, version) as alpha,
        caller(served, ALPHA_2, version) as alpha_too,
        caller(served, BETA, version) as beta,
        caller(served, OPERATOR, version) as operator,
    ):
        owned = await made_by(alpha)
        for tool in RULES:
            await probe(beta, tool, owned, site)
        # what beta makes is beta's: alpha does not list it
        theirs = (await beta.ok("create_session", {}))["sessionId"]
        alpha_sessions = (await alpha.ok("list_sessions", {}))["sessions"]
        assert [s["sessionId"] for s in alpha_sessions] == [owned.session]
        # one principal, two tokens: one caller
        mine = {r["runId"] for r in (await alpha_too.ok("list_task_runs", {}))["runs"]}
        assert {owned.run, owned.task} <= mine
        assert (await alpha_too.ok("get_task_run", {"runId": owned.run}))["runId"] == owned.run
        page = await alpha_too.ok("get_artifact", {"artifactId": owned.artifact})
        assert page["bytesReturned"] > 0
        # the operator sees and acts on everyone's
        every = {r["runId"] for r in (await operator.ok("list_task_runs", {"limit": 100}))["runs"]}
        assert {owned.run, owned.task} <= every
        sessions = {s["sessionId"] for s in (await operator.ok("list_sessions", {}))["sessions"]}
        assert {owned.session, theirs} <= sessions
        await operator.ok("get_artifact", {"artifactId": owned.artifact})
        # beta's force cancel changed nothing: alpha's run goes on until alpha cancels it
        run = await alpha.ok("get_task_run", {"runId": owned.run})
        assert run["status"] in ("queued", "running", "succeeded"), run
        for run_id in (owned.run, owned.task):
            await alpha.ok("cancel_task_run", {"runId": run_id, "force": True})
        await operator.ok("close_session", {"sessionId": theirs})
        await alpha.ok("close_session", {"sessionId": owned.session})


async def foreign_task_refused(
    beta: Caller, method: str, mine: str, params: dict[str, Any]
) -> None:
    fake = new_run_id()
    theirs = await beta.method(method, {"taskId": mine, **params})
    never = await beta.method(method, {"taskId": fake, **params})
    assert theirs.get("error", {}).get("code") == -32602, (method, theirs)
    same_as_unknown(theirs["error"], mine, never["error"], fake)


async def test_tasks_are_their_callers_own_on_2025_11_25_sessions(served: Served) -> None:
    async with (
        caller(served, ALPHA_1, LEGACY) as alpha,
        caller(served, ALPHA_2, LEGACY) as alpha_too,
        caller(served, BETA, LEGACY) as beta,
    ):
        params = {"name": "run_task_template", "arguments": {"templateId": "pause"}}
        created = await alpha.method("tools/call", {**params, "task": {"ttl": 60000}})
        task_id = created["result"]["task"]["taskId"]
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            await foreign_task_refused(beta, method, task_id, {})
        assert task_id not in {
            t["taskId"] for t in (await beta.method("tasks/list", {}))["result"]["tasks"]
        }
        listed = (await alpha_too.method("tasks/list", {}))["result"]["tasks"]
        assert task_id in {t["taskId"] for t in listed}  # the principal's other token
        final = await alpha.method("tasks/result", {"taskId": task_id})
        assert final["result"]["structuredContent"]["status"] == "succeeded", final
        # a cursor is one this server made: a forged or another caller's is refused at once
        forged = cursor_after(task_id)
        assert read_cursor(forged) == task_id
        refused = await beta.method("tasks/list", {"cursor": forged})
        assert refused["error"]["code"] == -32602, refused
        for cursor in (
            "-200000",
            "-1",
            "9" * 20,
            " 1 ",
            "1_0",
            "١",
            "",
            "tc1.",
            forged + "=",
            forged + " ",
        ):
            with anyio.fail_after(5):  # refused before any store work
                answer = await alpha.method("tasks/list", {"cursor": cursor})
            assert answer["error"]["code"] == -32602, (cursor, answer)
            assert answer["error"]["message"] == "not a tasks/list cursor of this server"


async def test_a_tasks_open_question_is_its_callers_own_on_2026_07_28(served: Served) -> None:
    async with (
        caller(served, ALPHA_1, MODERN) as alpha,
        caller(served, BETA, MODERN) as beta,
        caller(served, OPERATOR, MODERN) as operator,
    ):
        meta = declaring("elicitation")
        asking = {
            "templateId": "confirmed",
            "inputs": {"item": "tea"},
            "options": {"mode": "async"},
        }
        handle = await alpha.tool("run_task_template", asking, **meta)
        task_id = handle["taskId"]
        with anyio.fail_after(60):
            while True:
                task = (await alpha.method("tasks/get", {"taskId": task_id, "_meta": meta}))[
                    "result"
                ]
                if task["status"] == "input_required":
                    break
                await anyio.sleep(0.1)
        [key] = task["inputRequests"]
        answer = {"inputResponses": {key: {"action": "accept"}}, "_meta": meta}
        await foreign_task_refused(beta, "tasks/get", task_id, {"_meta": meta})
        await foreign_task_refused(beta, "tasks/update", task_id, answer)
        await foreign_task_refused(beta, "tasks/cancel", task_id, {"_meta": meta})
        asked = await beta.tool("get_task_run", {"runId": task_id}, **meta)
        assert asked["structuredContent"]["errorCode"] == "RUN_NOT_FOUND", asked
        seen = (await operator.method("tasks/get", {"taskId": task_id, "_meta": meta}))["result"]
        assert seen["status"] == "input_required"  # the operator sees every task
        await alpha.method("tasks/update", {"taskId": task_id, **answer})
        with anyio.fail_after(60):
            while task["status"] != "completed":
                task = (await alpha.method("tasks/get", {"taskId": task_id, "_meta": meta}))[
                    "result"
                ]
                await anyio.sleep(0.1)
        assert task["result"]["structuredContent"]["result"]["order"] == {"ordered": "tea"}


def test_a_cursor_is_only_what_the_server_makes() -> None:
    run_id = new_run_id()
    assert read_cursor(cursor_after(run_id)) == run_id
    for text in (
        "-1",
        "0",
        "9" * 40,
        " 1 ",
        "1_0",
        "١",
        "tc1.",
        "tc1.cnVu",
        cursor_after(run_id)[:-1],
    ):
        assert read_cursor(text) is None, text


def caller_request(principal: str) -> Any:
    """A request as the SDK's bearer auth leaves it: a remote token of `principal`."""
    token = AccessToken(
        token="t", client_id="c", scopes=[], claims={"trust": "remote", "principal": principal}
    )
    return SimpleNamespace(scope={"user": AuthenticatedUser(token)}, headers={}, client=None)


async def test_tasks_list_pages_by_the_cursors_it_made(manager: RunManager) -> None:
    tasks = Tasks(ServerState(manager), {})
    made: dict[str, set[str]] = {"alpha": set(), "beta": set()}
    for index in range(LIST_PAGE + 10):
        run_id, principal = new_run_id(), "beta" if index % 13 == 0 else "alpha"
        await manager.store.insert_run(run_id, "t", "1.0.0", {}, {}, manager.owner, principal)
        await manager.store.update_run(run_id, status="succeeded", ended_at=0.0)
        made[principal].add(run_id)
    cursors: dict[str | None, str] = {}
    for principal, expected in (("alpha", made["alpha"]), (None, made["alpha"] | made["beta"])):
        ctx = SimpleNamespace(request=None if principal is None else caller_request(principal))
        first = await tasks.listing(ctx, ListParams())  # type: ignore[arg-type]
        assert len(first["tasks"]) == LIST_PAGE and first["nextCursor"].startswith("tc1.")
        cursors[principal] = first["nextCursor"]
        rest = await tasks.listing(ctx, ListParams(cursor=first["nextCursor"]))  # type: ignore[arg-type]
        assert "nextCursor" not in rest
        listed = [t["taskId"] for t in first["tasks"] + rest["tasks"]]
        assert len(listed) == len(set(listed)) and set(listed) == expected  # each once
    beta = SimpleNamespace(request=caller_request("beta"))
    assert {t["taskId"] for t in (await tasks.listing(beta, ListParams()))["tasks"]} == made["beta"]  # type: ignore[arg-type]
    with pytest.raises(MCPError, match="not a tasks/list cursor"):  # alpha's cursor is not beta's
        await tasks.listing(beta, ListParams(cursor=cursors["alpha"]))  # type: ignore[arg-type]


async def test_a_request_state_is_the_principals_across_its_tokens_and_no_one_elses(
    served: Served,
) -> None:
    """requestState is bound to the principal, not the token: alpha answers with its other
    token (a rotation) and the run goes on; beta's call with the same state is refused as any
    forged one."""
    capable = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    steps = {"steps": [{"id": "go", "action": "set", "confirm": "Go on?", "with": {}}]}
    async with (
        caller(served, ALPHA_1, MODERN) as alpha,
        caller(served, ALPHA_2, MODERN) as alpha_too,
        caller(served, BETA, MODERN) as beta,
    ):
        with anyio.fail_after(60):
            first = await alpha.tool("run_steps", steps, **capable)
        assert first["resultType"] == "input_required", first
        [key] = first["inputRequests"]
        call = {
            "name": "run_steps",
            "arguments": steps,
            "_meta": capable,
            "inputResponses": {key: {"action": "accept", "content": {}}},
            "requestState": first["requestState"],
        }
        refused = await beta.method("tools/call", call)
        assert refused["error"]["code"] == -32602, refused
        assert refused["error"]["message"] == "Invalid or expired requestState"
        with anyio.fail_after(60):
            done = await alpha_too.method("tools/call", call)
        assert done["result"]["structuredContent"]["status"] == "succeeded", done
