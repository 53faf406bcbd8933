"""Installed from a wheel, as users install it: a fresh venv outside the checkout serves the
shipped templates and runs them, and modules named `server` or `cli` elsewhere do not break it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import venv
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.server import FixtureServer

ROOT = Path(__file__).parents[1]
SHIPPED = (
    "batch_extract_pages",
    "crawl_site",
    "extract_structured",
    "login_keep_session",
    "map_site",
    "multi_tab_compare",
    "summarize_pages_to_file",
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `bin` folder of a fresh venv holding taskplate installed from a wheel built from here."""
    wheels = tmp_path_factory.mktemp("wheels")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", "-w", str(wheels), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("taskplate-*.whl")
    target = tmp_path_factory.mktemp("venv")
    venv.create(target, with_pip=True)
    python = str(target / "bin" / "python")
    # The pip that ships with some Pythons (3.12.1's) fails on lxml's extras; users' pipx/uv do not.
    subprocess.run([python, *pip[1:], "install", "--upgrade", "pip"], check=True, timeout=300)
    done = subprocess.run(
        [python, *pip[1:], "install", str(wheel)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return target / "bin"


@pytest.fixture
def outside(tmp_path: Path) -> dict[str, str]:
    """An environment whose path holds other modules named like taskplate's layers."""
    others = tmp_path / "others"
    others.mkdir()
    for name in ("server", "cli", "dsl", "stdlib", "browser", "interpreter"):
        (others / f"{name}.py").write_text(f"raise ImportError('the wrong {name} was imported')\n")
    return {
        **{k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")},
        "PYTHONPATH": str(others),
        "TASKPLATE_HOME": str(tmp_path / "home"),
    }


def dsl(
    bin_dir: Path, env: dict[str, str], cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / "dsl"), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_every_package_folder_is_named_for_the_wheel() -> None:
    """A subpackage left out of pyproject's list is missing from the wheel: the installed dsl
    then fails on its first import (as dsl/expr/ did when it was made)."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        "taskplate." + ".".join(init.parent.relative_to(ROOT).parts)
        for layer in (ROOT / "taskplate").iterdir()
        if layer.is_symlink()
        for init in (ROOT / layer.name).rglob("__init__.py")
    }
    assert folders - listed == set(), "add these to [tool.setuptools] packages"


def test_the_wheel_carries_templates_grammar_and_no_loose_layers(installed: Path) -> None:
    site = next((installed.parent / "lib").glob("python3.*/site-packages"))
    package = site / "taskplate"
    assert sorted(p.stem for p in (package / "templates").glob("*.yaml")) == sorted(SHIPPED)
    assert (package / "dsl" / "expr" / "expr.lark").is_file()
    assert (package / "server" / "ui" / "ui.js").is_file()  # the runs page's script and style
    assert (package / "server" / "ui" / "ui.css").is_file()
    assert (package / "templates" / "taskplate.toml").is_file()
    assert (package / "templates" / "providers.lock.json").is_file()
    assert not any((site / name).exists() for name in ("dsl", "server", "cli", "stdlib"))


def test_the_installed_dsl_validates_and_serves_the_shipped_templates(
    installed: Path, outside: dict[str, str], tmp_path: Path
) -> None:
    version = dsl(installed, outside, tmp_path, "--version")
    assert version.returncode == 0 and "0." in version.stdout, version.stderr
    checked = dsl(installed, outside, tmp_path, "validate", *SHIPPED)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{len(SHIPPED)} templates checked: 0 errors" in checked.stderr
    doctor = dsl(installed, outside, tmp_path, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert f"ok   {len(SHIPPED) - 1} templates served" in doctor.stdout  # one is off by default


def test_the_installed_dsl_runs_a_batch(
    installed: Path, outside: dict[str, str], tmp_path: Path, site: FixtureServer
) -> None:
    urls = json.dumps([site.url("/article.html")])
    done = dsl(
        installed,
        outside,
        tmp_path,
        "run",
        "batch_extract_pages",
        "--json",
        "--input",
        f"urls={urls}",
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "succeeded", answer
    assert answer["result"]["summary"]["succeeded"] == 1
    item = answer["result"]["items"][0]
    assert (
        item["title"] == "Tuning the sliding window" and "Why batches are slow" in item["content"]
    )


def _served_until_answered(
    command: list[str], requests: list[dict[str, Any]], env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """The server as a client runs it: the requests sent, stdin kept open until every request
    is answered (as a client waits), then closed; what it wrote."""
    asked = sum("id" in r for r in requests)
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, cwd=cwd, text=True,
    ) as server:  # fmt: skip
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("".join(json.dumps(m) + "\n" for m in requests))
        server.stdin.flush()
        lines = []
        timer = threading.Timer(120, server.kill)
        timer.start()
        try:
            while sum('"id"' in line for line in lines) < asked:
                line = server.stdout.readline()
                if not line:
                    break
                lines.append(line)
            rest, errors = server.communicate()  # stdin closed now: the client is done
        finally:
            timer.cancel()
    return subprocess.CompletedProcess(command, server.returncode, "".join(lines) + rest, errors)


def test_the_installed_dsl_keeps_its_first_starts_answers_for_the_next(
    installed: Path, outside: dict[str, str], tmp_path: Path
) -> None:
    """Nothing kept yet (just installed): the SDK's server answers `dsl serve`'s first start and
    its answers are kept in the cache folder; the next start answers them before the SDK loads."""
    opening = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "install-test", "version": "1.0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    runs = []
    for _ in range(2):
        served = _served_until_answered(
            [str(installed / "dsl"), "serve"],
            opening,
            env={**outside, "XDG_CACHE_HOME": str(tmp_path / "cache")},
            cwd=tmp_path,
        )
        assert served.returncode == 0, served.stderr
        answers = [json.loads(line) for line in served.stdout.splitlines()]
        assert [a["id"] for a in answers if "id" in a] == [1, 2], served.stdout
        assert "unlike the server" not in served.stderr
        runs.append(("2 requests answered before the SDK was loaded" in served.stderr, answers))
    (first_at_once, first), (again_at_once, again) = runs
    assert not first_at_once and again_at_once
    assert again == first
