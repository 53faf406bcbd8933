"""Clients that are not ours drive `dsl serve` over stdio and over HTTP (with a bearer token):
the official TypeScript SDK (tests/interop/client.mjs) and the MCP Inspector CLI."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.server import FixtureServer
from tests.interop.conftest import NODE, last_json, node_env, require_node, run_node
from tests.server.conftest import DSL, TEST_TEMPLATES, Served, start_http, stop

TOKEN = "interop-token-0123456789abcdef"
INSPECTOR = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"


@pytest.fixture(scope="module")
def guarded(home: Path) -> Iterator[Served]:
    """HTTP with a token that is trusted as local (the fixture site is on loopback)."""
    served = start_http(home, env={"TASKPLATE_TOKENS": f"{TOKEN} local"})
    yield served
    stop(served)


def check_typescript_summary(summary: dict[str, Any]) -> None:
    assert "failure" not in summary, summary.get("failure")
    assert {"run_task_template", "scrape", "get_artifact", "close_tab"} <= set(summary["tools"])
    assert summary["scrape"]["isError"] is False and summary["scrape"]["status"] == 200
    assert summary["scrape"]["title"] == "Tuning the sliding window"
    assert summary["run"] == {"isError": False, "status": "succeeded"}
    # the server's bar ends full before its answer; the SDK passes each notification on, in
    # order, but may drop the last when it comes in one read with the answer (see client.mjs)
    sent, heard = summary["sentProgress"], summary["progress"]
    assert sent and sent[-1] == [2, 2], sent
    assert heard and heard == sent[: len(heard)] and len(heard) >= len(sent) - 1, (heard, sent)
    error = summary["error"]
    assert error["isError"] is True and error["errorCode"] == "TEMPLATE_NOT_FOUND"
    assert error["recoverHint"]
    assert "template://batch_extract_pages@1.0.0" in summary["resources"]
    assert set(summary["validated"]) == set(summary["tools"])  # each answer checked by the SDK
    steps = [e["data"] for e in summary["logs"] if e["logger"] == "taskplate.run"]
    assert any(s.get("step") == "page" and s["status"] == "succeeded" for s in steps), steps


def test_the_typescript_sdk_over_stdio(node: Path, home: Path, site: FixtureServer) -> None:
    done = run_node(node, ["client.mjs", "stdio", DSL, site.url("/article.html")], node_env(home))
    assert done.returncode == 0, done.stdout + done.stderr
    check_typescript_summary(last_json(done.stdout))


# @playwright/mcp 0.0.83's tools/list, 25 tools (bench/tools_size.py, docs/mcp.md "Tool groups")
PEER_TOOLS_LIST_CHARS = 20_296


def test_the_typescript_sdk_reads_a_small_tool_list_and_calls_a_template_as_a_tool(
    node: Path, home: Path, site: FixtureServer, tmp_path: Path
) -> None:
    """A default dsl serve's tools/list is no larger than the peer's, nor is it with the
    templates as tools; a template is a tool of its own, typed by its inputs and outputs (the
    SDK validates its answer), and a wrong argument is refused."""
    # the operator's own templates: one, so that the shipped ones fit beside it (with the test
    # templates' fifteen, the operator's fill the budget first: test_template_tools.py)
    own = tmp_path / "own"
    own.mkdir()
    shutil.copy(TEST_TEMPLATES / "shop_cards.yaml", own)
    # and a data home of its own: templates the other tests save in theirs are the operator's too
    fresh = node_env(tmp_path / "home", TASKPLATE_TEMPLATES=str(own))
    env = {k: v for k, v in fresh.items() if k != "TASKPLATE_TOOLS"}
    done = run_node(node, ["tools.mjs", DSL, site.url("/article.html")], env)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = last_json(done.stdout)
    assert "failure" not in summary, summary.get("failure")
    assert "run_task_template" in summary["defaultTools"]
    assert "evaluate" not in summary["defaultTools"]  # the tabs group is not a default one
    assert summary["defaultChars"] <= PEER_TOOLS_LIST_CHARS, summary["defaultChars"]
    assert summary["templateTool"] == {"required": ["urls"], "typed": "array", "items": "array"}
    shipped = {"batch_extract_pages", "crawl_site", "extract_structured", "map_site"}
    assert {"shop_cards", *shipped} <= set(summary["templateTools"]) and "navigate" not in summary[
        "templateTools"
    ]
    assert summary["templateToolsChars"] <= PEER_TOOLS_LIST_CHARS, summary["templateToolsChars"]
    assert summary["run"] == {
        "isError": False,
        "status": "succeeded",
        "templateId": "batch_extract_pages",
    }
    assert summary["wrong"] == {"isError": True, "errorCode": "INVALID_PARAMETER"}


def test_the_typescript_sdk_over_http_with_a_token(
    node: Path, home: Path, guarded: Served, site: FixtureServer
) -> None:
    args = ["client.mjs", "http", guarded.url, site.url("/article.html")]
    done = run_node(node, args, node_env(home, TASKPLATE_TEST_TOKEN=TOKEN))
    assert done.returncode == 0, done.stdout + done.stderr
    check_typescript_summary(last_json(done.stdout))
    refused = run_node(node, args, node_env(home))  # the same client without the token
    assert refused.returncode == 1 and "invalid_token" in refused.stdout, refused.stdout


def inspector(node: Path, home: Path, target: list[str], *args: str) -> tuple[int, Any]:
    # The Inspector gives a server 15 s to answer its start, which a fresh `dsl serve` beside a
    # busy suite (load 13 on 2 cores) overran; its own message says to raise it for a slow server.
    # How fast `dsl serve` starts is tests/server/test_front.py's and bench/start.py's to hold.
    command = [INSPECTOR, "--cli", "--connect-timeout", "60000", *target, *args]
    done = run_node(node, command, node_env(home))
    try:
        return done.returncode, last_json(done.stdout)
    except ValueError:
        raise AssertionError(f"exit {done.returncode}: {done.stdout}{done.stderr}") from None


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_inspector_cli(
    transport: str, node: Path, home: Path, guarded: Served, site: FixtureServer
) -> None:
    if transport == "stdio":
        target = ["-e", f"TASKPLATE_HOME={home}", DSL, "serve"]
    else:
        target = [guarded.url, "--header", f"Authorization: Bearer {TOKEN}"]
    code, listed = inspector(node, home, target, "--method", "tools/list")
    assert code == 0 and "scrape" in {t["name"] for t in listed["tools"]}
    code, scraped = inspector(
        node,
        home,
        target,
        "--method",
        "tools/call",
        "--tool-name",
        "scrape",
        "--tool-arg",
        f"url={site.url('/article.html')}",
    )
    assert code == 0 and scraped["structuredContent"]["status"] == 200, scraped
    inputs = {"urls": [site.url("/article.html")], "waitFor": 1}
    code, ran = inspector(
        node,
        home,
        target,
        "--method",
        "tools/call",
        "--tool-name",
        "run_task_template",
        "--tool-arg",
        "templateId=batch_extract_pages",
        f"inputs={json.dumps(inputs)}",
        'options={"mode": "sync"}',
    )
    assert code == 0 and ran["structuredContent"]["status"] == "succeeded", ran
    code, failed = inspector(
        node,
        home,
        target,
        "--method",
        "tools/call",
        "--tool-name",
        "run_task_template",
        "--tool-arg",
        "templateId=nope",
    )
    assert code != 0 and failed["isError"] is True, failed  # the Inspector exits non-zero
    assert failed["structuredContent"]["errorCode"] == "TEMPLATE_NOT_FOUND"
    code, resources = inspector(node, home, target, "--method", "resources/list")
    assert code == 0
    assert "template://batch_extract_pages@1.0.0" in {r["uri"] for r in resources["resources"]}


def test_a_missing_node_install_fails_and_says_how_to_install_it(tmp_path: Path) -> None:
    assert require_node(NODE) == NODE
    with pytest.raises(pytest.fail.Exception) as failed:
        require_node(tmp_path / "node_modules" / "node" / "bin" / "node")
    assert "make bootstrap" in str(failed.value) and "apt-get install" in str(failed.value)


def test_the_typescript_sdk_reads_long_answers_to_their_end_with_cursors(
    node: Path, home: Path, site: FixtureServer
) -> None:
    count = 200
    args = ["pages.mjs", DSL, site.base, str(count)]
    done = run_node(node, args, node_env(home))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = last_json(done.stdout)
    assert summary["longestText"] <= 80_000, summary["longestText"]  # the default budget
    batch = summary["batch"]
    assert batch["status"] == "succeeded" and batch["summary"], batch
    assert batch["total"] == count and batch["pages"] > 1 and 0 < batch["firstPage"] < count
    assert batch["urls"] == [site.url(f"/article.html?n={n}") for n in range(count)]
    long = summary["long"]
    assert long["pages"] > 1 and long["length"] == long["total"] and long["ends"], long
