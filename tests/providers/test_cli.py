"""`dsl providers sync` writes the lock file; `dsl validate` checks `mcp.*` steps against it
without starting a server; `dsl doctor` shows each provider and what is wrong with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.providers.conftest import NOW, alive, children, time_config, toml_list, write_folder

DSL = str(Path(sys.executable).parent / "dsl")

TYPOS = """\
template: typos
version: 1.0.0
name: typos
steps:
  - id: a
    action: mcp.time.get_curent_time
    with: {timezone: UTC}
  - id: b
    action: mcp.time.get_current_time
    with: {timezone: UTC, zone: x}
  - action: mcp.tme.get_current_time
  - action: set
    with: {x: "${{ steps.b.datetme }}"}
"""


def dsl(home: Path, *args: str, templates: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TASKPLATE_TEMPLATES"}
    if templates is not None:
        env["TASKPLATE_TEMPLATES"] = str(templates)
    return subprocess.run(
        [DSL, *args],
        env={**env, "TASKPLATE_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_sync_writes_the_lock_and_validate_checks_against_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = write_folder(tmp_path / "t", time_config(), {"what_time": NOW, "typos": TYPOS})
    missing = dsl(home, "validate", str(folder / "what_time.yaml"))
    assert missing.returncode == 1
    assert (
        'unknown action "mcp.time.get_current_time": no providers.lock.json beside '
        f"{folder / 'taskplate.toml'} (run dsl providers sync) [unknown-action]" in missing.stdout
    )
    before = children()
    synced = dsl(home, "providers", "sync", "--templates", str(folder))
    assert synced.returncode == 0, synced.stderr
    assert synced.stdout.startswith("ok   time: mcp-time 2026.10.19, 2 tools")
    lock = json.loads((folder / "providers.lock.json").read_text())
    entry = lock["providers"]["time"]
    assert entry["server"] == {"name": "mcp-time", "version": "2026.10.19"}
    tools = {t["name"]: t for t in entry["tools"]}
    assert set(tools) == {"get_current_time", "convert_time"}
    now = tools["get_current_time"]
    assert now["inputSchema"]["required"] == ["timezone"]
    assert "datetime" in now["outputSchema"]["properties"]
    assert now["annotations"]["readOnlyHint"] is True
    assert not [p for p in children() - before if alive(p)]

    clean = dsl(home, "validate", str(folder / "what_time.yaml"))
    assert clean.returncode == 0, clean.stdout
    typos = dsl(home, "validate", str(folder / "typos.yaml")).stdout
    assert (
        'unknown action "mcp.time.get_curent_time": provider "time" has no tool '
        '"get_curent_time"; did you mean "get_current_time"?' in typos
    )
    assert (
        'unknown argument "zone" in action "mcp.time.get_current_time"; did you mean "timezone"?'
        in typos
    )
    assert 'no provider "tme" is configured' in typos and 'did you mean "time"?' in typos
    assert 'has no property "datetme"; did you mean "datetime"?' in typos

    (folder / "taskplate.toml").write_text(time_config(extra='env = {TZ = "UTC"}\n'))
    stale = dsl(home, "validate", str(folder / "what_time.yaml"))
    assert stale.returncode == 0
    assert 'older than the configuration of provider "time"' in stale.stdout
    assert "[provider-lock]" in stale.stdout


def test_sync_reports_a_provider_that_does_not_start_and_locks_the_others(tmp_path: Path) -> None:
    broken = toml_list([sys.executable, "-c", "raise SystemExit(4)"])
    folder = write_folder(
        tmp_path / "t", time_config() + f"[providers.broken]\ncommand = {broken}\n", {}
    )
    synced = dsl(tmp_path / "home", "providers", "sync", "--templates", str(folder))
    assert synced.returncode == 1
    assert "BAD  broken:" in synced.stdout and "ok   time:" in synced.stdout
    lock = json.loads((folder / "providers.lock.json").read_text())
    assert list(lock["providers"]) == ["time"]
    nothing = dsl(tmp_path / "home", "providers", "sync")
    assert nothing.returncode == 2 and "no taskplate.toml found" in nothing.stderr


def test_doctor_shows_each_provider_and_a_failure_with_its_cause(tmp_path: Path) -> None:
    home = tmp_path / "home"
    broken = toml_list([sys.executable, "-c", "raise SystemExit(4)"])
    uses_broken = NOW.replace("what_time", "uses_broken").replace("mcp.time.", "mcp.broken.")
    folder = write_folder(
        tmp_path / "t",
        time_config()
        + f"[providers.broken]\ncommand = {broken}\n"
        + '[providers.idle]\ncommand = ["true"]\n[providers.Bad]\ncommand = ["x"]\n',
        {"what_time": NOW, "uses_broken": uses_broken},
    )
    doctor = dsl(home, "doctor", templates=folder)
    assert doctor.returncode == 1
    out = doctor.stdout
    assert f"ok   configuration {folder / 'taskplate.toml'}" in out
    assert "BAD  " in out and 'provider "Bad" skipped: bad name' in out
    assert "ok   provider time (stdio: " in out and "mcp-time 2026.10.19, 2 tools" in out
    assert "BAD  provider time: no providers.lock.json" in out
    assert "BAD  provider broken (stdio: " in out and "its tools are absent" in out
    assert "ok   provider idle (stdio: true) is not used by an enabled template; not started" in out


def test_dsl_run_of_a_file_uses_the_providers_of_its_folder(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "t", time_config(), {"what_time": NOW})
    before = children()
    ran = dsl(
        tmp_path / "home",
        "run",
        str(folder / "what_time.yaml"),
        "--json",
        "--input",
        "zone=Asia/Tokyo",
    )
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout)
    assert answer["status"] == "succeeded" and answer["result"]["datetime"].endswith("+09:00")
    assert not [p for p in children() - before if alive(p)]
