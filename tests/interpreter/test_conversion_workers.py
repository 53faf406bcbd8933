"""The run manager owns the worker process that turns pages into Markdown: a batch converts in it
once it is warm (the same answers as in a thread), and it ends when the manager stops."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from taskplate.browser import BrowserRuntime
from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from taskplate.stdlib.content import _conversion
from tests.fixtures.processes import process_alive
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


async def test_a_batch_converts_in_the_managers_worker_which_ends_with_the_manager(
    tmp_path: Path, runtime: BrowserRuntime, site: FixtureServer
) -> None:
    manager = RunManager(
        tmp_path / "home", TemplateLibrary(REGISTRY).load([SHIPPED]), runtime=runtime
    )
    urls = [site.url("/article.html"), site.url("/recipe.html")]
    answers = []
    async with manager.running():
        for _ in range(2):  # the first batch starts the worker, the second converts in it
            run_id = await manager.submit(
                "batch_extract_pages", {"urls": urls}, options={"trace": "off"}
            )
            with anyio.fail_after(90):
                answers.append(await manager.wait(run_id))
            with anyio.fail_after(120):  # a spawned interpreter imports lxml and trafilatura
                while _conversion._workers is None or not _conversion._workers.ready:
                    await anyio.sleep(0.05)
        workers = _conversion.worker_pids()
        assert len(workers) == 1
    assert [a["status"] for a in answers] == ["succeeded", "succeeded"]
    first, second = ([i["content"] for i in a["result"]["items"]] for a in answers)
    assert first == second and "sliding window" in first[0].lower()
    assert not any(process_alive(pid) for pid in workers), (
        "the conversion worker outlived the manager"
    )
    assert _conversion._workers is None
