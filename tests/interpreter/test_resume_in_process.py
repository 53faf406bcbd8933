"""Runs resumed from their checkpoints (#55), in-process: the run's death is its store rewound
to an earlier moment, its owner a dead process. A growing forEach admits the items it finished
again in the order they finished, so every item keeps its index and what it enqueued (the
result equals the undisturbed run's, no finished item runs again); a finished `onResume:
restart` group runs again; `take_over` without the run's template leaves the run as it is."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import anyio
import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import SHIPPED, RunManager, TemplateLibrary
from taskplate.stdlib import REGISTRY

pytestmark = pytest.mark.anyio
HERE = Path(__file__).parent
KEPT = 9  # items finished before the "death"


def rewound(db: Path, run_id: str, kept: int = KEPT) -> int:
    """The run as it was when `kept` items had finished, its owner dead (another host, its
    heartbeat stale); answers the step rows it had then."""
    with closing(sqlite3.connect(db)) as conn, conn:  # `with` alone does not close it
        seq = conn.execute(
            "SELECT seq FROM checkpoints WHERE run_id = ? AND key LIKE 'item:%' ORDER BY seq"
            " LIMIT 1 OFFSET ?",
            (run_id, kept),
        ).fetchone()[0]
        conn.execute("DELETE FROM checkpoints WHERE run_id = ? AND seq >= ?", (run_id, seq))
        conn.execute(
            "UPDATE runs SET status = 'running', result = NULL, error = NULL, ended_at = NULL,"
            " owner = 'far-away:1:dead', heartbeat_at = 0 WHERE run_id = ?",
            (run_id,),
        )
        return int(
            conn.execute("SELECT COUNT(*) FROM steps WHERE run_id = ?", (run_id,)).fetchone()[0]
        )


async def test_a_growing_loop_resumes_each_item_at_its_index_running_none_twice(
    tmp_path: Path,
) -> None:
    library = TemplateLibrary(REGISTRY).load([SHIPPED, HERE / "templates"])
    home = tmp_path / "home"
    async with RunManager(home, library).running() as first:
        run_id = await first.submit("grow", {"concurrency": 3})
        with anyio.fail_after(60):
            whole = await first.wait(run_id)
    assert whole["status"] == "succeeded", whole
    rows_before = rewound(home / "runs.db", run_id)
    async with RunManager(home, library).running() as second:
        assert await second.take_over(run_id)
        with anyio.fail_after(60):
            again = await second.wait(run_id)
        rows = await second.store.steps(run_id)
    assert again["status"] == "succeeded", again
    assert again["result"] == whole["result"]  # every item at its index, each once
    ran = [r for r in rows if r["seq"] >= rows_before]
    assert len(ran) == (31 - KEPT) * 2, len(ran)  # two steps an item, none of the kept ones
    assert again["progress"]["items"]["done"] == 31


async def test_a_finished_restart_group_runs_again_after_a_resume(tmp_path: Path) -> None:
    library = TemplateLibrary(REGISTRY).load([SHIPPED, HERE / "resume_templates"])
    home = tmp_path / "home"
    async with RunManager(home, library).running() as first:
        run_id = await first.submit("resume_relogin", {})
        with anyio.fail_after(60):
            whole = await first.wait(run_id)
    assert whole["status"] == "succeeded", whole
    rows_before = rewound(home / "runs.db", run_id, kept=3)
    async with RunManager(home, library).running() as second:
        assert await second.take_over(run_id)
        with anyio.fail_after(60):
            again = await second.wait(run_id)
        rows = await second.store.steps(run_id)
    assert again["status"] == "succeeded" and again["result"] == whole["result"], again
    ran = [r["step_path"] for r in rows if r["seq"] >= rows_before]
    assert ran.count("sign_in/token") == 1, ran  # the group again, though it had finished
    assert len([p for p in ran if p.startswith("pages[")]) == 3, ran  # the 3 items not kept


async def test_taking_over_without_the_template_leaves_the_run_for_a_process_that_has_it(
    tmp_path: Path,
) -> None:
    library = TemplateLibrary(REGISTRY).load([SHIPPED, HERE / "resume_templates"])
    home = tmp_path / "home"
    async with RunManager(home, library).running() as first:
        run_id = await first.submit("resume_relogin", {})
        with anyio.fail_after(60):
            assert (await first.wait(run_id))["status"] == "succeeded"
    rewound(home / "runs.db", run_id, kept=2)
    async with RunManager(home, TemplateLibrary(REGISTRY).load([SHIPPED])).running() as lacking:
        with pytest.raises(TaskplateError) as refused:
            await lacking.take_over(run_id)
        assert refused.value.code is ErrorCode.RUN_NOT_RESUMABLE
        assert "--templates" in refused.value.recover_hint
        assert (await lacking.describe(run_id))["status"] == "running"
    async with RunManager(home, library).running() as having:
        assert await having.take_over(run_id)
        with anyio.fail_after(60):
            assert (await having.wait(run_id))["status"] == "succeeded"
