"""The run store's contract, run against both backends: SQLite in the data home and a real
PostgreSQL (Debian's package, started for the session). Same calls, same answers."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import psycopg
import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.interpreter import LOCAL, ArtifactStore, Store, open_store
from taskplate.interpreter.store import _fingerprint_rows
from taskplate.interpreter.store._postgres import PostgresStore
from taskplate.interpreter.store._postgres_schema import MIGRATIONS, SCHEMA_VERSION
from taskplate.interpreter.store._tables import create_indexes, create_tables
from tests.fixtures.postgres import Postgres, alive, free_port, pg_bin, running_postgres

pytestmark = pytest.mark.anyio

ALIVE = 0.0  # every heartbeat counts as alive


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str | None]]:
    """(home, store URL): None is the SQLite default."""
    if request.param == "sqlite":
        yield tmp_path / "home", None
        return
    postgres: Postgres = request.getfixturevalue("postgres")
    with postgres.database() as url:
        yield tmp_path / "home", url


@pytest.fixture
async def store(backend: tuple[Path, str | None]) -> AsyncIterator[Store]:
    async with open_store(*backend) as opened:
        yield opened


async def add(
    store: Store, run_id: str, owner: str = "me", principal: str | None = None, **options: object
) -> None:
    await store.insert_run(run_id, "tpl", "1.0.0", {"q": "x"}, dict(options), owner, principal)


def unshared(principal: str | None) -> int | None:
    """No principal has a share of its own: only the store's limit counts."""
    return None


async def test_a_run_round_trips_with_json_fields(store: Store) -> None:
    await store.insert_run("run_1", "tpl", "1.0.0", {"q": "é", "n": [1, 2]}, {"trace": "off"}, "me")
    row = await store.run("run_1")
    assert row is not None
    assert (row.status, row.inputs, row.options, row.progress) == (
        "queued",
        {"q": "é", "n": [1, 2]},
        {"trace": "off"},
        {},
    )
    assert row.owner == "me" and row.heartbeat_at == pytest.approx(row.created_at)
    assert await store.run("run_missing") is None


async def test_a_terminal_run_never_changes(store: Store) -> None:
    await add(store, "run_1")
    await store.update_run("run_1", status="running", progress={"doneSteps": 1}, result={"a": 1})
    await store.update_run("run_1", status="succeeded", ended_at=123.5)
    await store.update_run("run_1", status="failed", error={"errorCode": "X"})
    row = await store.run("run_1")
    assert row is not None
    assert (row.status, row.error, row.result, row.ended_at) == ("succeeded", None, {"a": 1}, 123.5)
    assert row.progress == {"doneSteps": 1}


async def test_list_filters_counts_and_pages_newest_first(store: Store) -> None:
    for i in range(5):
        await add(store, f"run_{i}")
        time.sleep(0.002)
    await store.update_run("run_1", status="failed")
    rows, total = await store.list_runs(None, None, 2, 0)
    assert [r.run_id for r in rows] == ["run_4", "run_3"] and total == 5
    rows, total = await store.list_runs(None, None, 2, 4)
    assert [r.run_id for r in rows] == ["run_0"] and total == 5
    rows, total = await store.list_runs("failed", "tpl", 10, 0)
    assert [r.run_id for r in rows] == ["run_1"] and total == 1
    assert await store.list_runs(None, "other", 10, 0) == ([], 0)


async def test_cancel_flags_only_active_runs(store: Store) -> None:
    await add(store, "run_a")
    await add(store, "run_b")
    await store.update_run("run_b", status="succeeded")
    await store.request_cancel("run_a", force=False)
    await store.request_cancel("run_b", force=True)
    assert await store.cancel_flag("run_a") == "cooperative"
    assert await store.cancel_flag("run_b") is None
    await store.request_cancel("run_a", force=True)
    assert await store.cancel_flag("run_a") == "force"
    assert await store.cancel_flag("run_missing") is None


async def test_heartbeats_others_and_claims(store: Store) -> None:
    await add(store, "run_mine", owner="me")
    await add(store, "run_theirs", owner="dead")
    await add(store, "run_done", owner="dead")
    await store.update_run("run_done", status="failed")
    await store.update_run("run_theirs", heartbeat_at=1.0)
    await store.heartbeat("dead")
    theirs = await store.run("run_theirs")
    assert theirs is not None and theirs.heartbeat_at is not None and theirs.heartbeat_at > 1.0
    assert [r.run_id for r in await store.active_of_others("me")] == ["run_theirs"]
    assert not await store.claim("run_theirs", "someone else", "me")
    assert await store.claim("run_theirs", "dead", "me")
    assert not await store.claim("run_theirs", "dead", "other")  # taken once only
    assert await store.active_of_others("me") == []


async def test_admission_is_fifo_under_the_limit(store: Store) -> None:
    for name in ("run_1", "run_2", "run_3"):
        await add(store, name)
        time.sleep(0.002)
    assert await store.start_next("me", 2, ALIVE, unshared) == "run_1"  # the oldest first
    assert await store.start_next("me", 2, ALIVE, unshared) == "run_2"
    assert await store.start_next("me", 2, ALIVE, unshared) is None  # two run already
    await store.update_run("run_1", status="succeeded")
    assert await store.start_next("me", 2, ALIVE, unshared) == "run_3"
    row = await store.run("run_3")
    assert row is not None and row.status == "running" and row.started_at is not None
    assert await store.start_next("me", 5, ALIVE, unshared) is None  # nothing queued any more


async def test_admission_starts_only_the_owners_run_when_it_is_next(store: Store) -> None:
    await add(store, "run_theirs", owner="them")
    time.sleep(0.002)
    await add(store, "run_mine")
    assert await store.start_next("me", 5, ALIVE, unshared) is None  # theirs is older
    assert await store.start_next("them", 5, ALIVE, unshared) == "run_theirs"
    assert await store.start_next("me", 5, ALIVE, unshared) == "run_mine"


async def test_admission_skips_canceled_runs_and_dead_owners(store: Store) -> None:
    await add(store, "run_canceled")
    time.sleep(0.002)
    await add(store, "run_orphan", owner="dead")
    time.sleep(0.002)
    await add(store, "run_next")
    await store.request_cancel("run_canceled", force=False)
    await store.update_run("run_orphan", heartbeat_at=1.0)
    assert await store.start_next("me", 1, time.time() - 10, unshared) == "run_next"


async def test_admission_is_fair_among_principals(store: Store) -> None:
    """A principal at its share, or with the longer queue, never holds back another's run: the
    principal holding fewest slots goes first, then the oldest run."""
    for name in ("b1", "b2", "b3", "b4"):
        await add(store, name, principal="beta")
        time.sleep(0.002)
    await add(store, "a1", principal="alpha")
    time.sleep(0.002)
    await add(store, "a2", principal="alpha")
    await add(store, "l1", principal=None)

    def share(principal: str | None) -> int | None:
        return {"beta": 2, "alpha": 1}.get(principal or "")

    started = [await store.start_next("me", 9, ALIVE, share) for _ in range(4)]
    # the oldest; then alpha and the unnamed, holding none; then beta's second, within its share
    assert started == ["b1", "a1", "l1", "b2"]
    await store.update_run("b2", status="waiting_for_human")  # it holds its slot all the same
    assert await store.start_next("me", 9, ALIVE, share) is None  # b3, a2: at their shares
    assert (await store.queued_of("beta"), await store.queued_of(None)) == (2, 0)
    await store.update_run("b1", status="succeeded")
    assert await store.start_next("me", 9, ALIVE, share) == "b3"
    assert await store.start_next("me", 9, ALIVE, unshared) == "a2"  # alpha holds 1, beta 2
    assert await store.start_next("me", 9, ALIVE, unshared) == "b4"
    assert await store.queued_of("beta") == 0


async def test_steps_and_calls_replace_whole_rows(store: Store) -> None:
    call = {"action": "navigate", "tab": None, "args": {"url": "http://x/"}, "opened_tab": None}
    await store.write_step(
        "run_1", 0, call=call, step_id="go", action="navigate", status="running", attempts=1
    )
    await store.write_step(
        "run_1", 0, step_id="go", status="failed", attempts=2, error={"errorCode": "E"}
    )
    await store.write_step("run_1", 1, step_id="next", status="succeeded", attempts=1, tab_id="t1")
    steps = await store.steps("run_1")
    assert [(s["seq"], s["status"], s["attempts"]) for s in steps] == [
        (0, "failed", 2),
        (1, "succeeded", 1),
    ]
    assert steps[0]["action"] is None  # replaced whole, as INSERT OR REPLACE does
    assert steps[0]["error"] == {"errorCode": "E"} and steps[1]["tab_id"] == "t1"
    assert [c["args"] for c in await store.calls("run_1")] == [{"url": "http://x/"}]
    await store.keep_call("ses_1", None, action="click", tab=None, args={"selector": "a"})
    await store.keep_call(
        "ses_1", None, action="fill", tab="new", args={"value": {"$secret": True}}
    )
    calls = await store.calls("ses_1")
    assert [(c["seq"], c["action"], c["tab"]) for c in calls] == [
        (0, "click", None),
        (1, "fill", "new"),
    ]
    assert calls[1]["args"] == {"value": {"$secret": True}}


async def test_fingerprints_are_kept_per_version_and_bounded(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = {"count": 1, "element": {"tag": "h1"}, "read": "Lamps", "many": False}
    await store.keep_fingerprints("shop", "1.0.0", {"a": seen, "b": {**seen, "read": "B"}})
    await store.keep_fingerprints("shop", "1.0.0", {"a": {**seen, "read": "again"}})
    kept = await store.fingerprints("shop", "1.0.0")
    assert kept == {"a": {**seen, "read": "again"}, "b": {**seen, "read": "B"}}
    assert await store.fingerprints("shop", "2.0.0") == {}
    monkeypatch.setattr(_fingerprint_rows, "FINGERPRINT_PLACES", 3)
    await store.keep_fingerprints("shop", "1.0.0", {p: seen for p in "cdef"})
    assert sorted(await store.fingerprints("shop", "1.0.0")) == ["a", "b", "c"]
    for version in ["2.0.0", "3.0.0", "4.0.0"]:
        await store.keep_fingerprints("shop", version, {"a": seen})
    assert await store.fingerprints("shop", "1.0.0") == {}  # the 3 kept last: 2, 3 and 4
    assert await store.fingerprints("shop", "2.0.0") == {"a": seen}
    assert await store.fingerprints("other", "1.0.0") == {}


async def test_artifacts_bytes_chunks_and_expiry(backend: tuple[Path, str | None]) -> None:
    home, url = backend
    data = bytes(range(256)) * 1000 + b"\x00end"
    async with open_store(home, url) as store:
        await add(store, "run_1")
        artifacts = ArtifactStore(home / "artifacts", store, ttl_ms=60_000)
        artifact_id = await artifacts.save("run_1", "blob.bin", data, "application/octet-stream")
        chunks, offset = [], 0
        while True:
            chunk = await artifacts.read(artifact_id, offset, 70_000)
            chunks.append(chunk.data)
            offset += len(chunk.data)
            if chunk.complete:
                break
        assert b"".join(chunks) == data and len(chunks) == 4
        assert (await artifacts.read(artifact_id, len(data))).data == b""
        meta = await store.artifact(artifact_id)
        assert meta is not None and meta["size"] == len(data) and meta["expired"] == 0
        assert [a["artifact_id"] for a in await store.artifacts_of("run_1")] == [artifact_id]
        assert [a["artifact_id"] for a in await store.live_artifacts()] == [artifact_id]
        await store.update_run("run_1", status="succeeded", ended_at=time.time() - 120)
        assert await artifacts.sweep() == 1
        with pytest.raises(TaskplateError) as gone:
            await artifacts.read(artifact_id)
        assert gone.value.code is ErrorCode.ARTIFACT_EXPIRED
        assert await store.live_artifacts() == []
    if url is None:
        assert not (home / "artifacts" / "run_1" / artifact_id).exists()
    else:
        with psycopg.connect(url) as db:
            left = db.execute("SELECT count(*) FROM artifact_data").fetchone()
            assert left == (0,)


async def test_another_process_reads_what_one_wrote(backend: tuple[Path, str | None]) -> None:
    """Two stores on one backend (as two servers): rows and artifact bytes cross."""
    home, url = backend
    async with open_store(home, url) as one, open_store(home, url) as two:
        await add(one, "run_1")
        saved = await ArtifactStore(home / "artifacts", one).save(
            "run_1", "a.txt", b"hello", "text/plain"
        )
        assert (await ArtifactStore(home / "artifacts", two).read(saved)).data == b"hello"
        await two.request_cancel("run_1", force=True)
        assert await one.cancel_flag("run_1") == "force"


async def test_admission_holds_the_limit_under_racing_stores(
    backend: tuple[Path, str | None],
) -> None:
    """Eight threads, each with its own store (connection), try to start ten runs at once:
    never more than three run."""
    home, url = backend
    async with open_store(home, url) as setup:
        for i in range(10):
            await add(setup, f"run_{i:02d}")
    started: list[str] = []
    lock = threading.Lock()

    async def race() -> None:
        async with open_store(home, url) as mine:
            for _ in range(10):
                run_id = await mine.start_next("me", 3, ALIVE, unshared)
                if run_id is not None:
                    with lock:
                        started.append(run_id)

    def racer() -> None:  # a thread of its own, an event loop of its own: as another process
        anyio.run(race)

    threads = [threading.Thread(target=racer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(started) == ["run_00", "run_01", "run_02"]


async def test_postgres_schema_is_versioned_and_migrated_once(postgres: Postgres) -> None:
    with postgres.database() as url:
        async with open_store(None, url):  # type: ignore[arg-type]
            pass
        async with PostgresStore(url):
            pass
        with psycopg.connect(url) as db:
            versions = db.execute("SELECT version FROM schema_version ORDER BY version").fetchall()
        assert versions == [(v,) for v in range(1, SCHEMA_VERSION + 1)]
        with psycopg.connect(url, autocommit=True) as db:
            db.execute("INSERT INTO schema_version (version) VALUES (%s)", (SCHEMA_VERSION + 1,))
        with pytest.raises(TaskplateError) as newer:
            await PostgresStore(url).open()
        assert "Upgrade taskplate" in newer.value.recover_hint


async def test_an_unreachable_store_is_a_clear_error(tmp_path: Path) -> None:
    url = f"postgresql://nobody:s3cret@127.0.0.1:{free_port()}/none"
    with pytest.raises(TaskplateError) as failed, anyio.fail_after(60):
        await open_store(tmp_path, url).open()
    assert "cannot open the run store" in failed.value.message
    assert "s3cret" not in failed.value.message and "TASKPLATE_STORE" in failed.value.recover_hint


def test_a_store_url_of_another_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TaskplateError) as refused:
        open_store(tmp_path, "mysql://root@localhost/db")
    assert refused.value.code is ErrorCode.INVALID_PARAMETER
    assert "postgresql://" in refused.value.message
    assert not tmp_path.joinpath("runs.db").exists()


def test_a_missing_postgresql_is_named_with_the_way_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixture fails (never skips) with this message when the server programs are missing."""
    monkeypatch.setenv("TASKPLATE_PG_BIN", str(tmp_path))
    with pytest.raises(RuntimeError) as missing:
        pg_bin()
    assert "apt-get install postgresql" in str(missing.value) and "make bootstrap" in str(
        missing.value
    )


def test_the_test_cluster_leaves_no_process_and_no_folder(postgres: Postgres) -> None:
    with running_postgres() as other:
        pid, folder = other.pid(), other.folder
        assert pid is not None and alive(pid)
        with psycopg.connect(other.admin_url) as db:
            assert db.execute("SELECT 1").fetchone() == (1,)
    assert not alive(pid) and not folder.exists()


async def test_kept_back_writes_are_read_in_order_and_flushed(
    backend: tuple[Path, str | None],
) -> None:
    """`keep_step` / `keep_progress` (for callers that cannot await) never wait on the database;
    this process reads them at once, another store sees them after `flush`, and a kept-back
    progress never changes a run that ended meanwhile."""
    home, url = backend
    async with open_store(home, url) as one, open_store(home, url) as two:
        await add(one, "run_1")
        await add(one, "run_2")
        one.keep_step("run_1", 0, step_id="a", action="set", status="running", attempts=1)
        one.keep_step("run_1", 0, step_id="a", action="set", status="succeeded", attempts=1)
        one.keep_progress("run_1", {"doneSteps": 1})
        steps = await one.steps("run_1")  # a read of this store writes what it kept first
        assert [(s["seq"], s["status"]) for s in steps] == [(0, "succeeded")]
        one.keep_step("run_1", 1, step_id="b", action="set", status="succeeded", attempts=1)
        with anyio.fail_after(30):
            await one.flush()
        assert [s["seq"] for s in await two.steps("run_1")] == [0, 1]
        row = await two.run("run_1")
        assert row is not None and row.progress == {"doneSteps": 1}
        one.keep_progress("run_2", {"doneSteps": 5})
        await two.update_run("run_2", status="succeeded", progress={"doneSteps": 9})
        await one.flush()
        ended = await two.run("run_2")
        assert ended is not None and ended.progress == {"doneSteps": 9}


async def test_a_postgresql_call_leaves_the_event_loop_free(postgres: Postgres) -> None:
    """While one call waits on the database, the other tasks of the process go on (the store
    is async); a synchronous driver would hold the loop until the answer came."""
    with postgres.database() as url:
        async with PostgresStore(url) as store:
            order: list[str] = []
            in_flight = anyio.Event()

            async def slow() -> None:
                order.append("asked")
                in_flight.set()
                await store._one("SELECT pg_sleep(1) AS slept")
                order.append("answered")

            async def other() -> None:
                await in_flight.wait()
                order.append("other task ran")

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(slow)
                    tg.start_soon(other)
            assert order == ["asked", "other task ran", "answered"]


async def test_runs_are_listed_by_principal_a_keyset_page_at_a_time(store: Store) -> None:
    for i in range(5):
        await store.insert_run(f"run_{i}", "tpl", "1.0.0", {}, {}, "me", "a" if i % 2 else "b")
        time.sleep(0.002)
    rows, total = await store.list_runs(None, None, 10, 0, "a")
    assert [r.run_id for r in rows] == ["run_3", "run_1"] and total == 2
    assert {r.principal for r in rows} == {"a"}
    assert (await store.list_runs(None, None, 10, 0))[1] == 5  # no principal: every run
    first = await store.runs_before("b", float("inf"), "", 2)
    assert [r.run_id for r in first] == ["run_4", "run_2"]
    rest = await store.runs_before("b", first[-1].created_at, first[-1].run_id, 2)
    assert [r.run_id for r in rest] == ["run_0"]
    assert [r.run_id for r in await store.runs_before(None, float("inf"), "", 9)] == [
        f"run_{i}" for i in (4, 3, 2, 1, 0)
    ]
    await store.insert_artifact("art_1", "run_1", "a.txt", "text/plain", 1, "x", "a")
    assert (await store.artifact("art_1") or {})["principal"] == "a"


async def test_a_store_made_before_principals_is_migrated_its_runs_the_local_users(
    backend: tuple[Path, str | None],
) -> None:
    home, url = backend
    old_run = ("run_old", "tpl", "1.0.0", "queued", "{}", "{}", 1.0, 1.0)
    insert = "INSERT INTO runs (run_id, template_id, template_version, status, inputs, options, created_at, updated_at) VALUES "
    if url is None:
        home.mkdir(parents=True)
        with sqlite3.connect(home / "runs.db") as db:
            for statement in create_tables("sqlite", 1) + create_indexes("sqlite", 1):
                db.execute(statement)  # the tables as first made, without principals
            db.execute(insert + "(?, ?, ?, ?, ?, ?, ?, ?)", old_run)
        db.close()
    else:
        with psycopg.connect(url, autocommit=True) as db:
            db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            for version, migration in enumerate(MIGRATIONS[:2], 1):
                db.execute(migration)
                db.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
            db.execute(insert + "(%s, %s, %s, %s, %s, %s, %s, %s)", old_run)
    async with open_store(home, url) as store:
        old = await store.run("run_old")
        assert old is not None and old.principal == LOCAL
        await store.insert_run("run_new", "tpl", "1.0.0", {}, {}, "me", None)
        new = await store.run("run_new")
        assert new is not None and new.principal is None  # a caller nobody can tell apart
        assert [r.run_id for r in (await store.list_runs(None, None, 9, 0, LOCAL))[0]] == [
            "run_old"
        ]


async def test_a_cancel_requested_anywhere_is_heard_at_once_on_postgresql(
    postgres: Postgres,
) -> None:
    """Another process's request reaches a listener as a notice (no wait for the flags' poll)."""
    heard: list[tuple[str, bool]] = []
    first, forced = anyio.Event(), anyio.Event()

    def hear(run_id: str, force: bool) -> None:
        heard.append((run_id, force))
        first.set()
        if force:
            forced.set()

    with postgres.database() as url:
        async with (
            open_store(Path("unused"), url) as owner,
            open_store(Path("unused"), url) as other,
        ):
            await add(owner, "run_1")
            async with anyio.create_task_group() as tg:
                tg.start_soon(owner.listen_cancels, hear)
                with anyio.fail_after(10):
                    while not first.is_set():  # LISTEN is under way once a notice gets through
                        await other.request_cancel("run_1", force=False)
                        with anyio.move_on_after(0.2):
                            await first.wait()
                    await other.request_cancel("run_1", force=True)
                    await forced.wait()
                tg.cancel_scope.cancel()
    assert heard[0] == ("run_1", False) and heard[-1] == ("run_1", True), heard


async def test_sqlite_gives_no_cancel_notices(tmp_path: Path) -> None:
    """It returns at once: the run manager's watch reads the flags."""
    async with open_store(tmp_path / "home") as store:
        with anyio.fail_after(5):
            await store.listen_cancels(lambda run_id, force: None)


async def test_a_store_of_durable_runs_schema_6_is_migrated_to_fingerprints(
    backend: tuple[Path, str | None],
) -> None:
    """Version 7 (fingerprints, a run's repairs) comes after durable runs' 5 and 6: a store
    made at 6 keeps its checkpoints and gains what healing keeps."""
    home, url = backend
    run = ("run_old", "tpl", "1.0.0", "succeeded", "{}", "{}", 1.0, 1.0)
    insert = "INSERT INTO runs (run_id, template_id, template_version, status, inputs, options, created_at, updated_at) VALUES "
    point = "INSERT INTO checkpoints (run_id, key, seq, value) VALUES "
    if url is None:
        home.mkdir(parents=True)
        with sqlite3.connect(home / "runs.db") as db:
            for statement in create_tables("sqlite", 6) + create_indexes("sqlite", 6):
                db.execute(statement)
            db.execute(insert + "(?, ?, ?, ?, ?, ?, ?, ?)", run)
            db.execute(point + "(?, ?, ?, ?)", ("run_old", "step:a", 0, '"kept"'))
        db.close()
    else:
        with psycopg.connect(url, autocommit=True) as db:
            db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            for version, migration in enumerate(MIGRATIONS[:6], 1):
                db.execute(migration)
                db.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
            db.execute(insert + "(%s, %s, %s, %s, %s, %s, %s, %s)", run)
            db.execute(point + "(%s, %s, %s, %s)", ("run_old", "step:a", 0, '"kept"'))
    assert SCHEMA_VERSION == 7
    async with open_store(home, url) as store:
        assert [c["key"] for c in await store.checkpoints("run_old")] == ["step:a"]
        await store.keep_fingerprints("tpl", "1.0.0", {"h1": {"count": 1, "read": "x"}})
        assert await store.fingerprints("tpl", "1.0.0") == {"h1": {"count": 1, "read": "x"}}
        await store.insert_run("run_new", "tpl", "1.0.0", {}, {}, "me", None)
        await store.update_run("run_new", repairs={"repairs": []})
        new = await store.run("run_new")
        assert new is not None and new.repairs == {"repairs": []}
