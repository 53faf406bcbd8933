"""The code base stays lint-clean and type-clean: ruff (lint and format), mypy --strict, and the
layer contracts of pyproject.toml (import-linter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "."],
        ["ruff", "format", "--check", "."],
        ["mypy"],
        ["lint-imports", "--no-cache"],
    ],
    ids=["ruff-check", "ruff-format", "mypy", "import-contracts"],
)
def test_tool_is_clean(command: list[str]) -> None:
    done = subprocess.run(
        [str(BIN / command[0]), *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
