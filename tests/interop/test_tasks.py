"""MCP Tasks driven by clients that are not ours: the TypeScript SDK's own task support
(experimental.tasks, 2025-11-25) over stdio and over HTTP, through tests/interop/tasks.mjs; each
task answer checked there against the published schemas of @modelcontextprotocol/ext-tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.interop.conftest import last_json, node_env, run_node
from tests.server.conftest import DSL, start_http, stop


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
    home = tmp_path / "home"
    home.mkdir()
    served = start_http(home)
    try:
        done = run_node(node, ["tasks.mjs", "http", served.url], node_env(home))
    finally:
        stop(served)
    assert done.returncode == 0, done.stdout + done.stderr
    check_tasks_summary(last_json(done.stdout))
