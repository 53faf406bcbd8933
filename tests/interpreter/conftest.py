"""A run manager per test, on a temp data home, serving the shipped templates and this
folder's test templates, sharing the module's Chromium and Markdown conversion worker."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from taskplate.browser import BrowserRuntime
from taskplate.interpreter import SHIPPED, Limits, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY
from tests.fixtures.static_site import static_site

HERE = Path(__file__).parent


@pytest.fixture
def store_url() -> str | None:
    """The run store of `manager`: SQLite here; a module overrides it to run on PostgreSQL too."""
    return None


@pytest.fixture
async def manager(
    tmp_path: Path, runtime: BrowserRuntime, store_url: str | None, conversion_worker: None
) -> AsyncIterator[RunManager]:
    library = TemplateLibrary(REGISTRY).load([SHIPPED, HERE / "templates"])
    assert not library.rejected
    runs = RunManager(
        tmp_path / "home",
        library,
        runtime=runtime,
        limits=Limits(max_concurrent_runs=2, queue_capacity=3),
        store=store_url,
    )
    async with runs.running():
        yield runs
    assert runs.sessions.open_tabs == 0, "a run left tabs open"


@pytest.fixture
def static_pages(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder of pages a test writes and changes between runs, and the base URL serving it."""
    folder = tmp_path / "pages"
    folder.mkdir()
    with static_site(folder) as base:
        yield folder, base
