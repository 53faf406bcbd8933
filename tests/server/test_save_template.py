"""save_template through the MCP protocol (the SDK client): a run_steps run and a session's
browser tool calls become templates that validate clean, are served after a reload and run to the
same result; secrets never reach the file or the store; remote callers only when allowed."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, closing
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from mcp.client.client import Client
from mcp.server.mcpserver import MCPServer

from taskplate.browser import BrowserRuntime
from taskplate.cli.main import cli
from taskplate.dsl import check_source
from taskplate.interpreter import user_templates
from taskplate.server import build_server
from taskplate.stdlib import REGISTRY
from tests.fixtures.server import PASSWORD, USER, FixtureServer
from tests.server.conftest import DSL, running_manager, start_http, stop

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def served(home: Path, runtime: BrowserRuntime) -> AsyncIterator[MCPServer]:
    """A server over `home`, its library loaded as `dsl serve` loads it (shipped + saved)."""
    saved = [user_templates(home)] if user_templates(home).is_dir() else []
    async with running_manager(home, runtime, *saved) as manager:
        yield build_server(manager)[0]


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None
    return {"isError": bool(result.is_error), **result.structured_content}


def login_steps(site: FixtureServer) -> list[dict[str, Any]]:
    return [
        {"id": "open", "action": "navigate", "with": {"url": site.url("/login?next=/members")}},
        {"action": "fill", "with": {"selector": "input[name=username]", "value": USER}},
        {"action": "fill", "with": {"selector": "input[name=password]", "value": PASSWORD}},
        {"action": "click", "with": {"selector": "[type=submit]"}},
        {"action": "wait_for", "with": {"selector": "#welcome"}},
        {"id": "page", "action": "extract", "with": {"fields": {"welcome": "#welcome"}}},
    ]


def untimed(value: Any) -> Any:
    """A result without the times it took (`waitedMs`), which no two runs share."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if not k.endswith("Ms")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def nowhere_in(home: Path, secret: str) -> None:
    """The secret is in no file under the data home, the run store included."""
    for path in home.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    with closing(sqlite3.connect(home / "runs.db")) as db:  # `with` alone does not close it
        for table in ("runs", "steps", "calls"):
            for row in db.execute(f"SELECT * FROM {table}"):
                assert secret not in json.dumps(row, default=str), (table, row)


async def test_a_run_steps_run_becomes_a_template_that_runs_to_the_same_result(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer
) -> None:
    home = tmp_path / "home"
    async with served(home, runtime) as server, Client(server) as client:
        done = await call(client, "run_steps", steps=login_steps(site))
        assert done["status"] == "succeeded", done
        saved = await call(client, "save_template", runId=done["runId"], name="members_login")
        assert not saved["isError"], saved
        assert saved["secretInputs"] == ["password"]
        assert saved["inputs"] == ["url", "username", "password"]
        listed = await call(client, "list_task_templates")  # served at once
        assert "members_login" in [t["templateId"] for t in listed["templates"]]
        resource = await client.read_resource("template://members_login@1.0.0")
        assert "format: password" in resource.contents[0].text  # type: ignore[union-attr]
    path = user_templates(home) / "members_login.yaml"
    text = path.read_text(encoding="utf-8")
    assert check_source(text, str(path), REGISTRY).diagnostics == []  # not even a warning
    data = yaml.safe_load(text)
    assert data["inputs"]["properties"]["password"]["format"] == "password"
    assert "default" not in data["inputs"]["properties"]["password"]
    assert data["steps"][0]["id"] == "open" and data["steps"][-1]["id"] == "page"
    nowhere_in(home, PASSWORD)

    async with served(home, runtime) as server, Client(server) as client:  # a reload
        listed = await call(client, "list_task_templates")
        info = next(t for t in listed["templates"] if t["templateId"] == "members_login")
        assert "password" in info["inputsSchema"]["required"]
        again = await call(
            client,
            "run_task_template",
            templateId="members_login",
            inputs={"password": PASSWORD},
        )
        assert again["status"] == "succeeded", again
        assert untimed(again["result"]) == untimed(done["results"])
        assert again["result"]["page"]["values"]["welcome"] == "Welcome back, member"
    nowhere_in(home, PASSWORD)


async def test_a_session_of_browser_tools_becomes_a_template(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer
) -> None:
    home = tmp_path / "home"
    async with served(home, runtime) as server, Client(server) as client:
        sid = (await call(client, "create_session"))["sessionId"]
        await call(client, "navigate", sessionId=sid, url=site.url("/form.html"))
        tab = await call(client, "create_tab", sessionId=sid, url=site.url("/recipe.html"))
        info = await call(client, "get_page_info", sessionId=sid, tabId=tab["tabId"])
        await call(client, "close_tab", sessionId=sid, tabId=tab["tabId"])
        filled = await call(client, "fill", sessionId=sid, selector="#name", value="Ada")
        assert filled["secret"] is False
        await call(
            client, "fill", sessionId=sid, selector="#notes", value="s3cr3t-n0te", secret=True
        )
        await call(client, "select_option", sessionId=sid, selector="#colour", value="g")
        await call(client, "click", sessionId=sid, selector="#submit")
        out = await call(
            client, "get_page_content", sessionId=sid, format="text", onlyMainContent=False
        )
        await call(client, "close_session", sessionId=sid)
        saved = await call(client, "save_template", sessionId=sid, name="form_filled")
        assert not saved["isError"], saved
        assert saved["secretInputs"] == ["notes"]
        assert saved["inputs"] == ["url", "url_2", "name", "notes", "colour"]
        assert "testCase" not in saved  # the session was not recorded
        text = saved["text"]
        assert sid not in text  # a session's id is its key: never in a served file
        assert "${{ steps.create_tab_1.tabId }}" in text
        assert check_source(text, "form_filled.yaml", REGISTRY).diagnostics == []
        again = await call(
            client, "run_task_template", templateId="form_filled", inputs={"notes": "s3cr3t-n0te"}
        )
        assert again["status"] == "succeeded", again
        assert again["result"]["get_page_info_1"]["title"] == info["title"]
        # the page echoes what was typed; the run's stored result masks the secret
        assert '"notes":"s3cr3t-n0te"' in out["content"]
        masked = out["content"].replace("s3cr3t-n0te", "***")
        assert again["result"]["get_page_content_1"]["content"] == masked
    nowhere_in(home, "s3cr3t-n0te")


async def test_a_recorded_session_is_saved_with_a_first_case_that_passes_offline(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, scratch = tmp_path / "home", tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))  # where the session's recording is made
    tempfile.tempdir = None
    try:
        async with served(home, runtime) as server, Client(server) as client:
            sid = (await call(client, "create_session", record=True))["sessionId"]
            assert [p.name[:18] for p in scratch.iterdir()] == ["taskplate-session-"]
            await call(client, "navigate", sessionId=sid, url=site.url("/form.html"))
            await call(client, "fill", sessionId=sid, selector="#name", value="Ada")
            await call(
                client, "fill", sessionId=sid, selector="#notes", value="s3cr3t-n0te", secret=True
            )
            await call(client, "click", sessionId=sid, selector="#submit")
            await call(client, "get_page_content", sessionId=sid, format="text")
            await call(client, "close_session", sessionId=sid)  # the recording outlives it
            saved = await call(client, "save_template", sessionId=sid, name="form_recorded")
            assert not saved["isError"], saved
            again = await call(client, "save_template", sessionId=sid, name="form_again")
    finally:
        tempfile.tempdir = None
    case_file = Path(saved["testCase"])
    assert case_file == Path(saved["path"]).with_name("form_recorded.test.yaml")
    case = yaml.safe_load(case_file.read_text())["cases"][0]
    assert case["name"] == "first" and case["expect"]["status"] == "succeeded"
    assert case["inputs"] == {"notes": {"$env": "TASKPLATE_SECRET_NOTES"}}
    assert (case_file.parent / case["recording"]).is_file()
    assert "testCase" not in again  # taken by the first save
    assert list(scratch.iterdir()) == []  # the recording's folder went with the save
    nowhere_in(home, "s3cr3t-n0te")
    tested = subprocess.run(
        [DSL, "test", str(case_file), "--format", "json"],
        env={**os.environ, "TASKPLATE_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert json.loads(tested.stdout)["cases"][0]["outcome"] == "passed"


async def test_a_recorded_session_closed_unsaved_leaves_nothing(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    tempfile.tempdir = None
    try:
        async with served(tmp_path / "home", runtime) as server, Client(server) as client:
            sid = (await call(client, "create_session", record=True))["sessionId"]
            await call(client, "navigate", sessionId=sid, url=site.url("/article.html"))
    finally:
        tempfile.tempdir = None
    assert list(scratch.iterdir()) == []  # the server closed the open session, and its folder


@pytest.mark.parametrize(
    ("arguments", "code", "words"),
    [
        ({"runId": "run_00000000000000000000000000", "name": "x1"}, "RUN_NOT_FOUND", "no run"),
        ({"sessionId": "ses_unknown", "name": "x2"}, "SESSION_NOT_FOUND", "nothing was recorded"),
        ({"runId": "{failed}", "name": "x3"}, "INVALID_PARAMETER", "only a run that succeeded"),
        ({"runId": "{ok}", "name": "login_keep_session"}, "INVALID_PARAMETER", "shipped"),
        ({"runId": "{ok}", "name": "Bad-Name"}, "INVALID_PARAMETER", "not a template name"),
        ({"runId": "{ok}", "name": "flow_2", "sessionId": "s"}, "INVALID_PARAMETER", "either"),
    ],
)
async def test_bad_saves_are_refused_and_leave_no_file(
    tmp_path: Path,
    runtime: BrowserRuntime,
    arguments: dict[str, Any],
    code: str,
    words: str,
) -> None:
    home = tmp_path / "home"
    async with served(home, runtime) as server, Client(server) as client:
        runs = {
            "{ok}": await call(client, "run_steps", steps=[{"action": "set", "with": {"a": 1}}]),
            "{failed}": await call(
                client, "run_steps", steps=[{"action": "assert", "with": {"that": False}}]
            ),
        }
        assert runs["{ok}"]["status"] == "succeeded" and runs["{failed}"]["status"] == "failed"
        if arguments.get("runId") in runs:
            arguments = {**arguments, "runId": runs[arguments["runId"]]["runId"]}
        refused = await call(client, "save_template", **arguments)
        assert refused["isError"] and refused["errorCode"] == code, refused
        assert words in refused["error"]
    folder = user_templates(home)
    assert not folder.exists() or list(folder.iterdir()) == []


async def test_an_unfinished_run_is_refused(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer
) -> None:
    home = tmp_path / "home"
    async with served(home, runtime) as server, Client(server) as client:
        queued = await call(
            client,
            "run_task_template",
            templateId="batch_extract_pages",
            inputs={"urls": [site.url("/hang")]},  # never answers: the run stays running
            options={"mode": "async"},
        )
        refused = await call(client, "save_template", runId=queued["runId"], name="too_soon")
        assert refused["errorCode"] == "INVALID_PARAMETER" and "not finished" in refused["error"]
        await call(client, "cancel_task_run", runId=queued["runId"], force=True)
    assert not user_templates(home).exists()


def test_remote_callers_save_only_when_the_operator_allows_it(tmp_path: Path) -> None:
    import anyio

    async def attempt(url: str, local_run: str) -> tuple[dict[str, Any], dict[str, Any]]:
        async with Client(url) as client:
            steps = [{"id": "v", "action": "set", "with": {"a": 1}}]
            done = await call(client, "run_steps", steps=steps)
            own = await call(client, "save_template", runId=done["runId"], name="remote_set")
            other = await call(client, "save_template", runId=local_run, name="not_mine")
            return own, other

    source = tmp_path / "local.yaml"
    source.write_text(
        "template: local_set\nversion: 1.0.0\nsteps:\n  - {id: a, action: set, with: {x: 2}}\n",
        encoding="utf-8",
    )
    for allowed in (False, True):
        home = tmp_path / f"home_{allowed}"
        home.mkdir()
        cli_run = CliRunner(env={"TASKPLATE_HOME": str(home)})
        ran = cli_run.invoke(cli, ["run", str(source), "--json"])
        assert ran.exit_code == 0, ran.output
        local_run = json.loads(ran.stdout)["runId"]
        server = start_http(home, *(["--allow-remote-save"] if allowed else []))
        try:
            answer, other = anyio.run(attempt, server.url, local_run)
        finally:
            stop(server)
        # a remote caller's template is its own, in its principal's folder
        saved = [*home.glob("principals/*/templates/remote_set.yaml")]
        assert not [*home.rglob("not_mine.yaml")]  # a local caller's run
        assert not (user_templates(home) / "remote_set.yaml").exists()
        if allowed:
            assert not answer["isError"], answer
            assert len(saved) == 1 and saved[0].is_file()
            assert answer["path"] == "templates/remote_set.yaml"  # no server path
            assert str(home) not in json.dumps(answer)
            assert other["errorCode"] == "RUN_NOT_FOUND"  # another caller's: as an unknown id
            assert other["error"] == f"no run {local_run}"
        else:
            assert other["errorCode"] == "TRUST_LEVEL_NOT_ALLOWED"
            assert answer["errorCode"] == "TRUST_LEVEL_NOT_ALLOWED"
            assert "--allow-remote-save" in answer["recoverHint"]
            assert not saved


def test_dsl_template_from_run_saves_a_cli_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TASKPLATE_HOME", str(tmp_path))
    steps = tmp_path / "steps.yaml"
    steps.write_text(
        "template: two_sets\nversion: 1.0.0\nsteps:\n  - {id: a, action: set, with: {x: 2}}\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    ran = runner.invoke(cli, ["run", str(steps), "--json"])
    assert ran.exit_code == 0, ran.output
    run_id = json.loads(ran.stdout)["runId"]
    saved = runner.invoke(cli, ["template", "from-run", run_id, "--name", "kept_set"])
    assert saved.exit_code == 0, saved.output
    assert json.loads(saved.stdout)["templateId"] == "kept_set"
    clash = runner.invoke(cli, ["template", "from-run", run_id, "--name", "kept_set"])
    assert clash.exit_code == 1 and "already" in clash.stderr
    unknown = runner.invoke(cli, ["template", "from-run", "run_nope", "--name", "other"])
    assert unknown.exit_code == 1 and "[RUN_NOT_FOUND]" in unknown.stderr
    listed = runner.invoke(cli, ["validate", str(tmp_path / "templates" / "kept_set.yaml")])
    assert listed.exit_code == 0, listed.output
