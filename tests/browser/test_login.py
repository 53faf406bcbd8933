"""Profiles across processes: `dsl login` publishes, independent servers read the snapshot,
a second login is refused at once, and concurrent publishers never corrupt a snapshot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from taskplate.browser import ProfileStore
from tests.fixtures.server import FixtureServer

DSL = str(Path(sys.executable).parent / "dsl")


def env(home: Path) -> dict[str, str]:
    return {**os.environ, "TASKPLATE_HOME": str(home)}


def dsl_login(home: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [DSL, "login", "--headless", *args],
        env=env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def cookie_values(home: Path, profile: str) -> list[str]:
    state = json.loads((home / "profiles" / profile / "state.json").read_text())
    return [c["value"] for c in state["cookies"]]


async def scrape_members(home: Path, site: FixtureServer, profile: str) -> dict[str, Any]:
    params = StdioServerParameters(command=DSL, args=["serve"], env=env(home))
    async with Client(params) as client:
        result = await client.call_tool(
            "scrape", {"url": site.url("/members"), "profileId": profile, "waitFor": 1}
        )
    assert result.structured_content is not None
    return result.structured_content


@pytest.mark.anyio
async def test_a_login_is_seen_by_every_server_process_and_profiles_do_not_leak(
    tmp_path: Path, site: FixtureServer
) -> None:
    done = dsl_login(
        tmp_path,
        "--profile",
        "work",
        "--url",
        site.url("/auto-login"),
        "--until-selector",
        "#welcome",
    )
    assert done.returncode == 0, done.stderr
    assert "snapshot version 1 published (found #welcome)" in done.stderr
    assert ProfileStore(tmp_path / "profiles").read("work").version == 1

    async def member_page() -> dict[str, Any]:
        return await scrape_members(tmp_path, site, "work")

    async with anyio.create_task_group() as tg:  # two independent `dsl serve` processes at once
        answers: list[dict[str, Any]] = []

        async def one() -> None:
            answers.append(await member_page())

        tg.start_soon(one)
        tg.start_soon(one)
    assert len(answers) == 2 and all("Members-only content" in a["content"] for a in answers)

    stranger = await scrape_members(tmp_path, site, "personal")
    assert stranger["title"] == "Sign in" and "Members-only" not in stranger["content"]

    secret = cookie_values(tmp_path, "work")[0]
    logs = done.stderr + json.dumps(answers) + json.dumps(stranger)
    assert secret not in logs


def test_a_second_login_for_the_same_profile_fails_at_once(
    tmp_path: Path, site: FixtureServer
) -> None:
    opened = site.traffic.paths.count("/form.html") + 1
    first = subprocess.Popen(
        [
            DSL,
            "login",
            "--headless",
            "--profile",
            "p",
            "--url",
            site.url("/form.html"),
            "--until-selector",
            "#never",
            "--timeout",
            "30",
        ],
        env=env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        lock = tmp_path / "profiles" / "p" / "login.lock"
        deadline = time.monotonic() + 120  # a bound on hanging, not a speed target
        # Running means: holding the lock and showing its page (its browser has started).
        while not (
            lock.exists()
            and lock.read_text().strip()
            and site.traffic.paths.count("/form.html") >= opened
        ):
            assert time.monotonic() < deadline, "the first login never started"
            time.sleep(0.05)
        seen = site.traffic.paths.count("/form.html")
        second = dsl_login(tmp_path, "--profile", "p", "--url", site.url("/form.html"))
        # At once: it neither waited for the first login to end (that one runs until its
        # 30 s timeout) nor opened a browser or the page before failing.
        assert first.poll() is None
        assert site.traffic.paths.count("/form.html") == seen
        assert second.returncode == 1
        assert (
            "already being logged in by" in second.stderr and f'"pid": {first.pid}' in second.stderr
        )
        assert "Traceback" not in second.stderr
    finally:
        first.terminate()
        first.wait(timeout=30)


def test_bad_profile_ids_are_refused_by_the_command(tmp_path: Path) -> None:
    for bad in ("../x", "a/b", "..", "x" * 65):
        done = dsl_login(tmp_path, "--profile", bad, timeout=30)
        assert done.returncode == 1 and "INVALID_PARAMETER" in done.stderr, bad
    assert not (tmp_path / "profiles").exists() or list((tmp_path / "profiles").iterdir()) == []


PUBLISHER = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from taskplate.browser import ProfileStore
store = ProfileStore(Path({root_profiles!r}))
me = sys.argv[1]
done = 0
while done < 50:
    current = store.read("shared").version
    ok, _ = store.publish_state("shared", {{"cookies": [{{"name": "w", "value": me + str(done), "domain": "x", "path": "/"}}], "origins": []}}, current)
    done += ok
print(done)
"""


def test_two_processes_publishing_50_times_each_never_corrupt_a_snapshot(tmp_path: Path) -> None:
    profiles = tmp_path / "profiles"
    store = ProfileStore(profiles)
    store.ensure("shared")
    script = PUBLISHER.format(root=str(Path(__file__).parents[2]), root_profiles=str(profiles))
    writers = [
        subprocess.Popen([sys.executable, "-c", script, name], stdout=subprocess.PIPE, text=True)
        for name in ("a", "b")
    ]
    seen: list[int] = []
    while any(w.poll() is None for w in writers):
        snapshot = store.read("shared")  # every read parses and matches its checksum
        json.loads((profiles / "shared" / "state.json").read_text())
        seen.append(snapshot.version)
    outputs = [w.communicate()[0].strip() for w in writers]
    assert outputs == ["50", "50"]
    assert store.read("shared").version == 100
    assert seen == sorted(seen)  # versions only go up
    assert os.listdir(profiles / "shared" / "tmp") == []
