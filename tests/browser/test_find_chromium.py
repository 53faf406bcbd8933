"""Which Chromium the runtime launches: the operator's, Playwright's, then Debian's, the old
headless shell first for headless work when it is installed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from taskplate.browser import find_chromium
from taskplate.contract import TaskplateError


def _executable(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_headless_work_prefers_the_headless_shell_when_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TASKPLATE_CHROMIUM", raising=False)
    shell = _executable(tmp_path, "chromium-headless-shell")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    assert find_chromium(headless=True) == str(shell)
    assert find_chromium(headless=False) != str(shell)  # a visible window needs the browser


def test_the_operators_choice_and_playwrights_own_come_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _executable(tmp_path, "chromium-headless-shell")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    own = _executable(tmp_path, "playwright-chromium")
    monkeypatch.delenv("TASKPLATE_CHROMIUM", raising=False)
    assert find_chromium(str(own), headless=True) == str(own)
    chosen = _executable(tmp_path, "my-chrome")
    monkeypatch.setenv("TASKPLATE_CHROMIUM", str(chosen))
    assert find_chromium(str(own), headless=True) == str(chosen)
    monkeypatch.setenv("TASKPLATE_CHROMIUM", str(tmp_path / "missing"))
    with pytest.raises(TaskplateError, match="does not exist"):
        find_chromium(headless=True)
