"""`dsl validate` imports only what checking needs: bench/validate.py's import audit (no browser,
MCP SDK, Markdown conversion, HTTP client or process pool), run as CI runs the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_validate_imports_nothing_forbidden() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "validate.py"), "imports"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("forbidden imports: none: ok")
