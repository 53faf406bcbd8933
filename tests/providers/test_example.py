"""The shipped example summarize_pages_to_file: validated, disabled until the operator enables
it, then run over real Chromium and the reference filesystem server, writing its summary
into the one folder the server may write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from taskplate.browser import BrowserRuntime
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from tests.fixtures.server import FixtureServer
from tests.providers.conftest import FILESYSTEM, alive, children, toml_list

pytestmark = pytest.mark.anyio
DSL = str(Path(sys.executable).parent / "dsl")
TEMPLATES = Path(__file__).parents[2] / "templates"


def test_the_example_and_its_lock_validate() -> None:
    checked = subprocess.run(
        [DSL, "validate", "--strict", str(TEMPLATES / "summarize_pages_to_file.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


async def test_the_example_is_disabled_until_enabled_then_writes_its_summary(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer
) -> None:
    shipped = TemplateLibrary(REGISTRY).load([SHIPPED])
    assert "summarize_pages_to_file" not in [t.id for t in shipped.all()]
    with pytest.raises(TaskplateError) as refused:
        shipped.get("summarize_pages_to_file")
    assert refused.value.code is ErrorCode.TEMPLATE_DISABLED

    home, allowed = tmp_path / "home", tmp_path / "allowed"
    home.mkdir()
    allowed.mkdir()
    (home / "taskplate.toml").write_text(
        f"[providers.files]\ncommand = {toml_list([FILESYSTEM, str(allowed)])}\n"
        '[templates]\nenabled = ["summarize_pages_to_file"]\n'
    )
    library = TemplateLibrary(REGISTRY).load([SHIPPED], home)
    assert library.rejected == {}  # checked offline: the shipped lock lists the files tools
    assert "older than the configuration" in (library.actions.stale("files") or "")
    before = children()
    manager = RunManager(home, library, runtime=runtime)
    async with manager.running():
        assert library.rejected == {}
        template = library.get("summarize_pages_to_file")
        assert library.needs(template) == ("L2", ["files"])
        started = [p for p in children() - before if "mcp-server-filesystem" in _cmd(p)]
        assert started
        urls = [site.url("/article.html"), site.url("/recipe.html")]
        run_id = await manager.submit("summarize_pages_to_file", {"urls": urls, "file": "pages.md"})
        outside = await manager.submit(
            "summarize_pages_to_file", {"urls": urls[:1], "file": str(tmp_path / "escape.md")}
        )
        with anyio.fail_after(120):
            answer = await manager.wait(run_id)
            escaped = await manager.wait(outside)
        steps = (await manager.describe(run_id, include_steps=True))["steps"]
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["written"] == "Successfully wrote to pages.md"
    assert answer["result"]["summary"]["succeeded"] == 2
    text = (allowed / "pages.md").read_text()
    assert text.startswith("# Summary of 2 pages")
    assert "## Tuning the sliding window" in text and "## Weeknight lentil soup" in text
    write = [s for s in steps if s["action"] == "mcp.files.write_file"]
    assert [(s["provider"], s["capabilityLevel"]) for s in write] == [("files", "L2")]
    assert escaped["status"] == "failed"
    assert escaped["error"]["details"]["stepErrorCode"] == "PROVIDER_ERROR"
    assert "Access denied" in escaped["error"]["error"]
    assert not (tmp_path / "escape.md").exists()
    assert not [p for p in started if alive(p)]


def _cmd(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""
