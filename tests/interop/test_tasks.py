"""MCP Tasks driven by clients that are not ours: the TypeScript SDK's own task support
(experimental.tasks, 2025-11-25) over stdio and over HTTP, through tests/interop/tasks.mjs, and a
task that asks its user (a confirm step) answered by the SDK's elicitation handler through
tasks/result (tests/interop/tasks_asked.mjs), each task answer checked there against the
published schemas of @modelcontextprotocol/ext-tasks; and the official Tasks requester of that
package (tests/interop/ext_tasks.mjs, which validates what it reads itself) on both lines over
stdio and HTTP, on success, failure, cancel and (2026-07-28) a question answered through
tasks/update. (That requester's 2025-11-25 line polls tasks/get to the end and never calls
tasks/result early, so it cannot answer a task's question there.)"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.interop.conftest import last_json, node_env, run_node
from tests.server.conftest import DSL, TEST_TEMPLATES, Served, start_http, stop
from tests.server.test_human import TEMPLATES as HUMAN

# The test templates and those that ask a person (`confirmed`).
FOLDERS = os.pathsep.join([str(TEST_TEMPLATES), str(HUMAN)])


@contextmanager
def served_http(tmp_path: Path, **env: str) -> Iterator[Served]:
    """`dsl serve --transport http` on a home of its own in tmp_path, stopped after."""
    home = tmp_path / "home"
    home.mkdir()
    served = start_http(home, env=env)
    try:
        yield served
    finally:
        stop(served)


def check_tasks_summary(summary: dict[str, Any]) -> None:
    assert "failure" not in summary, summary.get("failure")
    assert summary["problems"] == [], summary["problems"]  # every answer fits the schemas
    assert summary["capabilities"] == {
        "list": {},
        "cancel": {},
        "requests": {"tools": {"call": {}}},
    }
    assert summary["taskTools"] == ["run_steps", "run_task_template"]
    succeeded = summary["succeeded"]
    assert succeeded["kinds"][0] == "taskCreated" and succeeded["last"] == "result", succeeded
    assert succeeded["status"] == "succeeded" and succeeded["taskId"].startswith("run_")
    assert summary["got"]["status"] == "completed"
    # the SDK turns a failed or cancelled task into its error message
    assert "failed" in summary["failed"]["error"]["message"], summary["failed"]
    assert summary["cancel"]["status"] == "cancelled", summary["cancel"]
    assert "cancelled" in summary["cancelled"]["error"]["message"], summary["cancelled"]
    ids = [succeeded["taskId"], summary["failed"]["taskId"], summary["cancelled"]["taskId"]]
    assert summary["listed"] == [
        [ids[2], "cancelled"],
        [ids[1], "failed"],
        [ids[0], "completed"],
    ]


def test_the_typescript_sdks_tasks_over_stdio(node: Path, tmp_path: Path) -> None:
    done = run_node(node, ["tasks.mjs", "stdio", DSL], node_env(tmp_path / "home"))
    assert done.returncode == 0, done.stdout + done.stderr
    check_tasks_summary(last_json(done.stdout))


def test_the_typescript_sdks_tasks_over_http(node: Path, tmp_path: Path) -> None:
    with served_http(tmp_path) as served:
        done = run_node(node, ["tasks.mjs", "http", served.url], node_env(served.home))
    assert done.returncode == 0, done.stdout + done.stderr
    check_tasks_summary(last_json(done.stdout))


def check_asked_summary(summary: dict[str, Any]) -> None:
    """A confirm step of a 2025-11-25 task, as the TypeScript SDK's client saw it: the task went
    input_required, the SDK called tasks/result, the question came on it to the client's
    elicitation handler (naming the task) while the task read input_required, and the accepted
    run completed with its answer."""
    assert "failure" not in summary, summary.get("failure")
    assert summary["problems"] == [], summary["problems"]  # every answer fits the schemas
    task_id = summary["taskId"]
    assert summary["asked"] == [
        {"message": "Submit the order for tea?", "relatedTask": task_id, "status": "input_required"}
    ]
    assert "taskStatus:input_required" in summary["kinds"], summary["kinds"]
    assert summary["last"] == "result" and summary["related"] == {"taskId": task_id}
    assert summary["structured"]["status"] == "succeeded", summary["structured"]
    assert summary["structured"]["result"] == {"order": {"ordered": "tea"}, "after": True}
    assert summary["got"] == "completed"


def test_the_typescript_sdks_task_asks_its_user_over_stdio(node: Path, tmp_path: Path) -> None:
    env = node_env(tmp_path / "home", TASKPLATE_TEMPLATES=FOLDERS)
    done = run_node(node, ["tasks_asked.mjs", "stdio", DSL], env)
    assert done.returncode == 0, done.stdout + done.stderr
    check_asked_summary(last_json(done.stdout))


def test_the_typescript_sdks_task_asks_its_user_over_http(node: Path, tmp_path: Path) -> None:
    with served_http(tmp_path, TASKPLATE_TEMPLATES=FOLDERS) as served:
        done = run_node(node, ["tasks_asked.mjs", "http", served.url], node_env(served.home))
    assert done.returncode == 0, done.stdout + done.stderr
    check_asked_summary(last_json(done.stdout))


def check_requester_summary(summary: dict[str, Any]) -> None:
    """What the official requester (ext-tasks) saw: every call a task, each outcome right."""
    assert "failure" not in summary, summary.get("failure")
    assert summary["succeeded"]["kind"] == "task", summary["succeeded"]
    assert summary["succeeded"]["taskId"].startswith("run_")
    assert (summary["succeeded"]["status"], summary["succeeded"]["run"]) == (
        "completed",
        "succeeded",
    )
    assert summary["failed"]["status"] == "failed", summary["failed"]
    assert "100 ms" in summary["failed"]["error"] or "STEP_TIMEOUT" in summary["failed"]["error"]
    assert summary["cancelled"]["status"] == "cancelled", summary["cancelled"]


def test_the_official_tasks_requester_on_2025_11_25_over_stdio(node: Path, tmp_path: Path) -> None:
    done = run_node(node, ["ext_tasks.mjs", "legacy", "stdio", DSL], node_env(tmp_path / "home"))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = last_json(done.stdout)
    check_requester_summary(summary)
    ids = [summary[k]["taskId"] for k in ("cancelled", "failed", "succeeded")]
    assert [i for i, _ in summary["listed"]] == ids


def test_the_official_tasks_requester_on_both_lines_over_http(node: Path, tmp_path: Path) -> None:
    with served_http(tmp_path, TASKPLATE_TEMPLATES=FOLDERS) as served:
        env = node_env(served.home)
        legacy = run_node(node, ["ext_tasks.mjs", "legacy", "http", served.url], env)
        modern = run_node(node, ["ext_tasks.mjs", "modern", "http", served.url], env)
    assert legacy.returncode == 0, legacy.stdout + legacy.stderr
    check_requester_summary(last_json(legacy.stdout))
    assert modern.returncode == 0, modern.stdout + modern.stderr
    summary = last_json(modern.stdout)
    check_requester_summary(summary)
    # a confirmation asked by the task, answered through tasks/update by the requester
    assert summary["asked"] == ["Submit the order for tea?"]
    assert summary["confirmed"]["status"] == "completed", summary["confirmed"]
    assert summary["confirmed"]["result"] == {"order": {"ordered": "tea"}, "after": True}


def test_the_official_tasks_requester_on_2026_07_28_over_stdio(node: Path, tmp_path: Path) -> None:
    """Its task traffic goes, framed by the requester, to a `dsl serve` of its own on the same
    run store (tests/interop/ext_tasks.mjs `rawStdio`)."""
    env = node_env(tmp_path / "home", TASKPLATE_TEMPLATES=FOLDERS)
    done = run_node(node, ["ext_tasks.mjs", "modern", "stdio", DSL], env)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = last_json(done.stdout)
    check_requester_summary(summary)
    assert summary["asked"] == ["Submit the order for tea?"]
    assert summary["confirmed"]["result"] == {"order": {"ordered": "tea"}, "after": True}
