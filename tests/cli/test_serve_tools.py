"""`dsl serve` chooses its tool groups as docs/mcp.md says: `--tools` over TASKPLATE_TOOLS over
`[serve]` in the data home's taskplate.toml over the default set; a name that is not a group
stops the start naming the groups there are. (The default set: tests/interop/test_clients.py
and tests/server/test_tool_groups.py.)"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from taskplate.server.tools import GROUPS
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL

pytestmark = pytest.mark.anyio


def env(home: Path, **extra: str) -> dict[str, str]:
    plain = {k: v for k, v in os.environ.items() if k != "TASKPLATE_TOOLS"}
    return {**plain, "TASKPLATE_HOME": str(home), **extra}


async def listed(home: Path, *args: str, **extra: str) -> set[str]:
    params = StdioServerParameters(command=DSL, args=["serve", *args], env=env(home, **extra))
    async with Client(params) as client:
        return {t.name for t in (await client.list_tools()).tools}


def names(*groups: str) -> set[str]:
    return {name for group in groups for name in GROUPS[group]}


async def test_the_flag_the_setting_and_the_file_choose_the_groups(tmp_path: Path) -> None:
    (tmp_path / "taskplate.toml").write_text(
        '[serve]\ntools = ["runs", "authoring"]\ntemplateTools = true\n', encoding="utf-8"
    )
    from_file = await listed(tmp_path)
    assert names("runs", "authoring") <= from_file
    assert "batch_extract_pages" in from_file  # templateTools from the file
    assert "navigate" not in from_file
    flagged = await listed(
        tmp_path, "--tools", "pages", "--no-template-tools", TASKPLATE_TOOLS="tabs"
    )
    assert flagged == names("pages")  # the flag over the setting over the file


def test_a_name_that_is_no_group_stops_the_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [DSL, "serve", "--transport", "http", "--port", "9", "--tools", "templates,browser"],
        env=env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert '"browser" is not a tool group' in done.stderr, done.stderr


async def test_the_answer_budget_comes_from_the_flag_else_the_file(
    tmp_path: Path, site: FixtureServer
) -> None:
    (tmp_path / "taskplate.toml").write_text("[serve]\nanswerTokens = 1000\n", encoding="utf-8")
    for args, most in (((), 4_000), (("--answer-tokens", "3000"), 12_000)):
        params = StdioServerParameters(
            command=DSL, args=["serve", "--tools", "pages", *args], env=env(tmp_path)
        )
        async with Client(params) as client:
            result = await client.call_tool("scrape", {"url": site.url("/large?n=300")})
        text = result.content[0].text if result.content[0].type == "text" else ""
        assert most - 1_000 < len(text) <= most, (args, len(text))
        assert json.loads(text)["page"]["nextCursor"]


async def test_the_templates_as_tools_bring_their_own_default_groups_and_budget(
    tmp_path: Path,
) -> None:
    """--template-tools alone serves templates and runs beside the templates' tools; a budget
    (--tool-tokens, [serve] toolTokens) too small for them leaves them to run_task_template."""
    offered = await listed(tmp_path, "--template-tools")
    assert names("templates", "runs") < offered and "navigate" not in offered
    small = await listed(tmp_path, "--template-tools", "--tool-tokens", "1000")
    assert small == names("templates", "runs")
    assert {"batch_extract_pages", "crawl_site", "map_site"} <= offered
    (tmp_path / "taskplate.toml").write_text("[serve]\ntoolTokens = 1000\n", encoding="utf-8")
    assert await listed(tmp_path, "--template-tools") == names("templates", "runs")
