"""The run state machine on data-only templates: no browser is started for these. Every test
runs twice: on the SQLite store and on a real PostgreSQL store (same semantics)."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import psycopg
import pytest

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.interpreter import RunManager, matches, new_run_id

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    if request.param == "sqlite":
        yield None
        return
    with request.getfixturevalue("postgres").database() as url:
        yield url


async def run(manager: RunManager, template: str, inputs: dict | None = None, **kw: object) -> dict:
    run_id = await manager.submit(template, inputs or {}, **kw)  # type: ignore[arg-type]
    with anyio.fail_after(30):
        return await manager.wait(run_id)


async def test_needs_branches_when_and_output(manager: RunManager) -> None:
    answer = await run(manager, "flow", {"n": 3})
    assert answer["status"] == "succeeded"
    assert answer["result"] == {"sum": 34, "skipped": None}
    assert answer["progress"] == {"totalSteps": 5, "doneSteps": 5}
    steps = (await manager.describe(answer["runId"], include_steps=True))["steps"]
    assert {s["stepId"]: s["status"] for s in steps} == {
        "a": "succeeded",
        "b": "succeeded",
        "c": "succeeded",
        "never": "skipped",
        "d": "succeeded",
    }
    assert manager.sessions.sessions == {}


async def test_on_error_continue_holds_between_steps_joined_by_needs(
    manager: RunManager,
) -> None:
    answer = await run(manager, "tolerated")
    assert answer["status"] == "succeeded" and answer["result"] == {"missing": True}
    steps = (await manager.describe(answer["runId"], include_steps=True))["steps"]
    assert {s["stepId"]: s["status"] for s in steps} == {
        "a": "succeeded",
        "broken": "failed",
        "after": "succeeded",
    }


async def test_retries_then_fails_with_step_execution_failed(manager: RunManager) -> None:
    answer = await run(manager, "retries")
    assert answer["status"] == "failed"
    assert answer["error"]["errorCode"] == "STEP_EXECUTION_FAILED"
    assert answer["error"]["details"] == {
        "runId": answer["runId"],
        "failedStep": "/steps/0",
        "failedStepId": "flaky",
        "stepErrorCode": "EXECUTION_ERROR",
    }
    assert answer["error"]["recoverHint"]
    step = (await manager.describe(answer["runId"], include_steps=True))["steps"][0]
    assert step["attempts"] == 3 and step["error"]["message"] == "always broken"


@pytest.mark.parametrize(
    ("named", "path", "pointer"),
    [(True, "sign_in/check", "/steps/0/steps/1"), (False, "sign_in/2", "/steps/0/steps/2")],
)
async def test_a_failed_steps_error_names_its_path_of_ids(
    manager: RunManager, named: bool, path: str, pointer: str
) -> None:
    answer = await run(manager, "group_failure", {"named": named})
    error = answer["error"]
    assert error["error"] == f'step "{path}" failed: not signed in'
    assert error["details"]["failedStepId"] == path and error["details"]["failedStep"] == pointer


async def test_each_step_says_where_it_ran_and_only_the_outer_loops_items_count(
    manager: RunManager,
) -> None:
    answer = await run(manager, "nested_loops")
    steps = (await manager.describe(answer["runId"], include_steps=True))["steps"]
    # the run's items are the pages, the rows steps of theirs: 2 items, 6 steps
    assert answer["progress"] == {
        "totalSteps": 6,
        "doneSteps": 6,
        "items": {"total": 2, "done": 2, "succeeded": 2, "failed": 0},
    }
    assert sorted(s["stepPath"] for s in steps) == [
        "pages[0]/mark",
        "pages[0]/rows[0]/0",
        "pages[0]/rows[1]/0",
        "pages[1]/mark",
        "pages[1]/rows[0]/0",
        "pages[1]/rows[1]/0",
    ]


async def test_output_is_checked_against_outputs(manager: RunManager) -> None:
    answer = await run(manager, "bad_output")
    assert answer["status"] == "failed" and answer["error"]["errorCode"] == "OUTPUT_SCHEMA_MISMATCH"
    assert answer["error"]["details"]["violations"][0]["pointer"] == "/count"


async def test_inputs_are_validated_with_pointers(manager: RunManager) -> None:
    with pytest.raises(TaskplateError) as caught:
        await manager.submit("flow", {"n": "many"})
    assert caught.value.code is ErrorCode.INVALID_PARAMETER
    assert caught.value.details["violations"] == [
        {"pointer": "/n", "message": "'many' is not of type 'integer'"}
    ]
    assert (await manager.list())["total"] == 0  # nothing was queued


async def test_unknown_template_and_version(manager: RunManager) -> None:
    with pytest.raises(TaskplateError) as caught:
        await manager.submit("nope", {})
    assert caught.value.code is ErrorCode.TEMPLATE_NOT_FOUND
    with pytest.raises(TaskplateError) as caught:
        await manager.submit("flow", {}, version="^2.0")
    assert (
        caught.value.code is ErrorCode.TEMPLATE_VERSION_UNSUPPORTED
        and "1.2.0" in caught.value.recover_hint
    )
    assert (await run(manager, "flow", version="^1.1"))["templateVersion"] == "1.2.0"


def test_version_ranges() -> None:
    assert matches("1.2.3", "1.2.3") and not matches("1.2.4", "1.2.3")
    assert (
        matches("1.4.0", "^1.2")
        and matches("1.2.0", "^1.2")
        and not matches("1.1.9", "^1.2")
        and not matches("2.0.0", "^1.2")
    )


def test_run_ids_are_sortable_and_well_formed() -> None:
    first, second = new_run_id(), new_run_id()
    assert first.startswith("run_") and len(first) == 30
    assert first[4:14] <= second[4:14]


async def test_remote_callers_cannot_run_local_only_templates(manager: RunManager) -> None:
    with pytest.raises(TaskplateError) as caught:
        await manager.submit("local_only", {}, trust=TrustLevel.REMOTE)
    assert (
        caught.value.code is ErrorCode.TRUST_LEVEL_NOT_ALLOWED and "local" in caught.value.message
    )


async def test_step_timeout(manager: RunManager) -> None:
    answer = await run(manager, "pause", {"ms": 2000, "timeout": 100})
    assert answer["status"] == "failed"
    assert answer["error"]["details"]["stepErrorCode"] == "STEP_TIMEOUT"


async def test_run_timeout_keeps_finished_items(manager: RunManager) -> None:
    answer = await run(manager, "pause", {"ms": 200}, options={"timeoutMs": 700})
    assert answer["status"] == "failed" and answer["error"]["errorCode"] == "RUN_TIMEOUT"
    summary = answer["result"]["summary"]
    assert 2 <= summary["succeeded"] < 12 and summary["skipped"] > 0
    assert all(item["success"] for item in answer["result"]["items"])


async def test_effective_timeout_is_the_smallest(manager: RunManager) -> None:
    template = manager.library.get("pause")
    assert manager.effective_timeout_ms(template, {}) == 60_000
    assert manager.effective_timeout_ms(template, {"timeoutMs": 5_000}) == 5_000
    assert manager.effective_timeout_ms(manager.library.get("flow"), {}) == 900_000


async def test_cancel_skips_pending_items_and_keeps_finished_ones(manager: RunManager) -> None:
    # Items of 400 ms leave the poll 1.6 s before the twelfth is done. The answer's status is the
    # one after the request: the items in flight may finish, and the run be canceled, before the
    # manager reads it back (it was, once, in CI at 3.13 on PostgreSQL).
    run_id = await manager.submit("pause", {"ms": 400})
    with anyio.fail_after(10):
        while ((await manager.describe(run_id))["progress"].get("items") or {}).get("done", 0) < 3:
            await anyio.sleep(0.05)
    requested = await manager.cancel(run_id)
    assert requested["cancelRequested"] is True
    assert requested["currentStatus"] in {"running", "canceled"}
    answer = await manager.wait(run_id)
    assert answer["status"] == "canceled"
    summary = answer["result"]["summary"]
    assert summary["succeeded"] >= 3 and summary["skipped"] >= 1
    assert await manager.cancel(run_id) == {"cancelRequested": False, "currentStatus": "canceled"}


async def test_forced_cancel_aborts_the_step_in_flight(manager: RunManager) -> None:
    run_id = await manager.submit("pause", {"ms": 20_000})
    await anyio.sleep(0.3)
    await manager.cancel(run_id, force=True)
    with anyio.fail_after(5):
        answer = await manager.wait(run_id)
    assert answer["status"] == "canceled"


async def test_runs_queue_fifo_and_the_queue_has_a_capacity(manager: RunManager) -> None:
    # The two slots are held until canceled: a slot freed while a loaded machine submits the
    # rest would leave room in the queue (pauses of 100 ms did, at a load of 20 on 2 cores).
    first = [await manager.submit("pause", {"ms": 60_000}) for _ in range(2)]
    queued = [await manager.submit("pause", {"ms": 100}) for _ in range(3)]  # the queue
    assert {(await manager.describe(r))["status"] for r in queued} == {"queued"}
    with pytest.raises(TaskplateError) as caught:
        await manager.submit("pause", {"ms": 100})
    assert caught.value.code is ErrorCode.RUN_QUEUE_FULL and caught.value.recover_hint
    for r in first:
        await manager.cancel(r, force=True)
    with anyio.fail_after(30):
        for r in first + queued:
            await manager.wait(r)
    started = [(await manager.store.run(r)).started_at for r in queued]  # type: ignore[union-attr]
    assert started == sorted(started)  # FIFO
    listed = await manager.list(limit=3)
    assert listed["total"] == 5 and [r["runId"] for r in listed["runs"]] == queued[::-1]


async def test_unknown_run_and_terminal_states_never_change(manager: RunManager) -> None:
    with pytest.raises(TaskplateError) as caught:
        await manager.describe("run_nope")
    assert caught.value.code is ErrorCode.RUN_NOT_FOUND
    answer = await run(manager, "flow")
    await manager.store.update_run(answer["runId"], status="running")
    assert (await manager.describe(answer["runId"]))["status"] == "succeeded"


async def test_secrets_are_never_stored_or_shown(
    manager: RunManager, caplog: pytest.LogCaptureFixture, store_url: str | None
) -> None:
    secret = "hunter2-very-secret"
    answer = await run(manager, "secret", {"password": secret})
    assert answer["status"] == "failed"
    described = await manager.describe(answer["runId"], include_steps=True)
    text = str(described)
    assert secret not in text and "***" in text
    row = await manager.store.run(answer["runId"])
    assert row is not None and row.inputs == {"password": "***"}
    if store_url is None:
        manager.store.db.execute("PRAGMA wal_checkpoint(FULL)")  # type: ignore[attr-defined]
        for path in (manager.home / "runs.db").parent.glob("runs.db*"):
            assert secret.encode() not in path.read_bytes(), path
    else:
        with psycopg.connect(store_url) as db:
            for table in ("runs", "steps", "calls", "artifacts", "artifact_data"):
                rows = db.execute(f"SELECT * FROM {table}").fetchall()
                assert secret not in repr(rows), table
    assert secret not in caplog.text


async def test_a_math_error_fails_its_step_coded_with_the_expressions_position(
    manager: RunManager,
) -> None:
    answer = await run(manager, "math_error", {"big": 1e308})
    assert answer["status"] == "failed"
    step = (await manager.describe(answer["runId"], include_steps=True))["steps"][0]
    assert step["error"]["code"] == "INVALID_PARAMETER"
    assert step["error"]["message"] == (
        "step \"grow\": '*' of 1e+308 and 10 is out of range"
        " (at `inputs.big * 10`, characters 4-19 of `${{ 1 + inputs.big * 10 }}`)"
    )
    assert "characters 4-19" in answer["error"]["error"]  # the run's error says where too
