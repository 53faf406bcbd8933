"""Templates an operator switches on and off in taskplate.toml, through MCP: a disabled one
is not listed and refused with TEMPLATE_DISABLED, a run under way finishes, and changes to
template files or the configuration take effect at the next list_task_templates."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.interpreter import RunManager, TemplateLibrary
from taskplate.server import build_server
from taskplate.stdlib import REGISTRY
from tests.providers.conftest import NOW, time_config

pytestmark = pytest.mark.anyio


def plain(tid: str, ms: int = 0, trust: str = "[local, remote]") -> str:
    return (
        f"template: {tid}\nversion: 1.0.0\nname: {tid}\ntrust: {trust}\n"
        f"steps:\n  - action: wait\n    with: {{ms: {ms}}}\n  - id: v\n    action: set\n"
        f"    with: {{done: true}}\noutput:\n  done: ${{{{ steps.v.done }}}}\n"
    )


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert result.structured_content is not None
    return {"isError": bool(result.is_error), **result.structured_content}


def listed(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["templateId"]: t for t in answer["templates"]}


def touch_later(path: Path, text: str) -> None:
    """Write, and make sure the modification time moves even on a coarse clock."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    if path.stat().st_mtime_ns == before:
        import os

        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


async def test_switches_and_reloads_through_mcp(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "slow.yaml").write_text(plain("slow", 1500))
    (folder / "quick.yaml").write_text(plain("quick"))
    (folder / "off.yaml").write_text(plain("off"))
    (folder / "what_time.yaml").write_text(NOW)
    config = folder / "taskplate.toml"
    touch_later(config, time_config() + '[templates]\ndisabled = ["off"]\nlocal_only = ["quick"]\n')
    library = TemplateLibrary(REGISTRY).load([folder])
    manager = RunManager(tmp_path / "home", library)
    async with manager.running():
        server, _ = build_server(manager)
        async with Client(server) as client:
            first = listed(await call(client, "list_task_templates"))
            assert set(first) == {"slow", "quick", "what_time"}
            assert first["quick"]["trustLevelSupport"] == ["local"]
            assert first["what_time"]["capabilityLevel"] == "L0"
            assert first["what_time"]["providers"] == ["time"]
            assert first["slow"]["providers"] == []
            refused = await call(client, "run_task_template", templateId="off")
            assert refused["isError"] and refused["errorCode"] == "TEMPLATE_DISABLED"
            with pytest.raises(TaskplateError) as remote:
                await manager.submit("quick", {}, trust=TrustLevel.REMOTE)
            assert remote.value.code is ErrorCode.TRUST_LEVEL_NOT_ALLOWED

            # a run under way, then its template is switched off: the run finishes
            under_way = await call(
                client, "run_task_template", templateId="slow", options={"mode": "async"}
            )
            touch_later(config, time_config() + '[templates]\ndisabled = ["slow"]\n')
            second = listed(await call(client, "list_task_templates"))
            assert "slow" not in second and "off" in second
            assert second["quick"]["trustLevelSupport"] == ["local", "remote"]
            with anyio.fail_after(60):
                finished = await manager.wait(under_way["runId"])
            assert finished["status"] == "succeeded"
            late = await call(client, "run_task_template", templateId="slow")
            assert late["errorCode"] == "TEMPLATE_DISABLED"

            # files added, changed to something invalid, removed: at the next list
            touch_later(folder / "added.yaml", plain("added"))
            with caplog.at_level(logging.WARNING, logger="taskplate.templates"):
                touch_later(
                    folder / "quick.yaml", plain("quick").replace("action: set", "action: sett")
                )
                third = listed(await call(client, "list_task_templates"))
            assert "added" in third and "quick" not in third
            assert 'unknown action "sett"' in caplog.text and "quick.yaml not served" in caplog.text
            (folder / "off.yaml").unlink()
            assert "off" not in listed(await call(client, "list_task_templates"))
            ran = await call(client, "run_task_template", templateId="added")
            assert ran["status"] == "succeeded", json.dumps(ran)
