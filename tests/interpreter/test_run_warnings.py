"""A step's warnings are the run's too: get_task_run answers them, placed by step, beside a
run that succeeded (issue 53: 24 silent nulls and a run that said nothing)."""

from __future__ import annotations

import anyio
import pytest

from taskplate.interpreter import RunManager
from tests.fixtures.server import FixtureServer

pytestmark = pytest.mark.anyio


async def test_a_field_no_record_has_warns_on_the_step_and_the_run(
    manager: RunManager, site: FixtureServer
) -> None:
    url = site.url("/shop/growing.html?ms=40")
    run_id = await manager.submit("shop_cards", {"url": url})
    with anyio.fail_after(60):
        answer = await manager.wait(run_id)
    assert answer["status"] == "succeeded"
    assert len(answer["result"]["products"]) == 24  # the whole list, read once it stopped
    warning = (
        'products[].price (".prcie") matched in none of the 24 records: check its selector, '
        "or name it in required to fail the step"
    )
    assert answer["warnings"] == [f"cards: {warning}"]
    assert "warnings" not in answer["progress"]
    steps = (await manager.describe(run_id, include_steps=True))["steps"]
    assert [s["stepId"] for s in steps] == ["open", "cards"]
    assert steps[1]["warnings"] == [warning] and "warnings" not in steps[0]


async def test_a_run_without_warnings_has_none(manager: RunManager, site: FixtureServer) -> None:
    run_id = await manager.submit("shop_cards", {"url": site.url("/shop/growing.html?n=1")})
    with anyio.fail_after(60):
        answer = await manager.wait(run_id)
    assert answer["status"] == "succeeded" and "warnings" not in answer  # one record: no verdict
