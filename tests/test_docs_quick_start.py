"""The README's quick start is run as written (issue 53): it names the data home and its
default, and each of its commands works in a fresh data home, against the local fixture site
in place of example.com; `dsl ui` answers on its port."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from taskplate.browser import data_home
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL, free_port

ROOT = Path(__file__).parents[1]


def _quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_quick_start_is_ten_lines_and_names_the_default_data_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = _quick_start()
    assert len(lines) <= 10, lines
    home = next(line for line in lines if line.startswith("export TASKPLATE_HOME="))
    monkeypatch.delenv("TASKPLATE_HOME", raising=False)
    assert Path(home.partition("=")[2]).expanduser() == data_home()  # the default it names
    assert {"dsl run", "dsl ui"} <= {" ".join(line.split()[:2]) for line in lines}


def test_every_quick_start_command_works_in_a_fresh_data_home(
    tmp_path: Path, site: FixtureServer
) -> None:
    env = {**os.environ, "TASKPLATE_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    page = site.url("/article.html")
    for line in _quick_start():
        if line.startswith("export "):
            continue
        words = [w.replace("https://example.com/", page) for w in shlex.split(line)]
        assert words[0] == "dsl", line
        if words[1] == "ui":
            _serves_the_runs_page([DSL, *words[1:]], env)
            continue
        done = subprocess.run(
            [DSL, *words[1:]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])
    assert (tmp_path / "page_title.yaml").is_file() and (tmp_path / "home/runs.db").is_file()


def _serves_the_runs_page(command: list[str], env: dict[str, str]) -> None:
    """`dsl ui` answers its page on a free port (asked until it listens, within 60 s), then is
    stopped."""
    port = free_port()
    with subprocess.Popen(
        [*command, "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as ui:
        try:
            _answers(ui, f"http://127.0.0.1:{port}/")
        finally:
            ui.terminate()
            ui.wait(timeout=30)


def _answers(ui: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        assert ui.poll() is None, ui.stderr.read() if ui.stderr else ui.returncode
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                assert answer.status == 200
                return
        except OSError:  # not listening yet
            assert time.monotonic() < deadline, "dsl ui did not answer within 60 s"
        with contextlib.suppress(subprocess.TimeoutExpired):
            ui.wait(timeout=0.2)  # its end, if it ends, is reported above
