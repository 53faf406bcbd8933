"""`dsl run` and confirmations: asked on its terminal (a pseudo-terminal here), or decided by
`--confirm` when there is none. Each run is its own process; nothing is left running."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.server.conftest import DSL, env_for

TEMPLATE = Path(__file__).parents[1] / "server" / "human_templates" / "confirmed.yaml"


def dsl_run(home: Path, *flags: str) -> dict[str, Any]:
    done = subprocess.run(
        [DSL, "run", str(TEMPLATE), "--json", "--input", "item=soap", *flags],
        env=env_for(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("flags", "status", "by"),
    [
        ((), "failed", "nobody to ask"),
        (("--confirm", "allow"), "succeeded", "--confirm allow"),
        (("--confirm", "deny"), "failed", "--confirm deny"),
    ],
)
def test_without_a_terminal_dsl_run_follows_confirm(
    tmp_path: Path, flags: tuple[str, ...], status: str, by: str
) -> None:
    answer = dsl_run(tmp_path / "home", *flags)
    assert answer["status"] == status, answer
    if status == "failed":
        assert answer["error"]["details"]["stepErrorCode"] == "CONFIRMATION_REQUIRED"
        assert "--confirm" in answer["error"]["recoverHint"]
    from taskplate.interpreter import RunStore

    async def read() -> list[dict[str, Any]]:
        async with RunStore(tmp_path / "home" / "runs.db") as store:
            return await store.steps(answer["runId"])

    steps = anyio.run(read)
    assert steps[0]["confirmation"]["by"] == by


@pytest.mark.parametrize(("typed", "status"), [("y\n", "succeeded"), ("n\n", "failed")])
def test_on_a_terminal_dsl_run_asks_the_person_there(
    tmp_path: Path, typed: str, status: str
) -> None:
    main, side = pty.openpty()
    process = subprocess.Popen(
        [DSL, "run", str(TEMPLATE), "--json", "--input", "item=soap"],
        env=env_for(tmp_path / "home"),
        stdin=side,
        stderr=side,
        stdout=subprocess.PIPE,
        text=True,
    )
    os.close(side)
    try:
        seen = b""
        deadline = time.monotonic() + 120
        while b"Submit the order for soap?" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 1.0)  # never blocks past the deadline
            if ready:
                seen += os.read(main, 1024)
        assert b"[y]es / [n]o / [c]ancel the run" in seen, seen
        os.write(main, typed.encode())
        out, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(main)
    answer = json.loads(out)
    assert answer["status"] == status, answer
    if status == "failed":
        assert answer["error"]["details"]["stepErrorCode"] == "CONFIRMATION_DECLINED"
