"""Benchmark of static checking: templates validated per second (warm, in process) on the
shipped templates, and the cold start of `dsl validate login_keep_session.yaml` as a whole new
process, beside a bare `python -c pass` measured in the same rounds (interleaved).

Bytecode is compiled first (as pip does on install): with PYTHONDONTWRITEBYTECODE set, every
start would otherwise compile the sources again.

Run: .venv/bin/python bench/validate.py [rounds]
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from taskplate.dsl import check_source  # noqa: E402
from taskplate.stdlib import REGISTRY  # noqa: E402

TEMPLATES = sorted((ROOT / "templates").glob("*.yaml"))
TARGET_MS = 2.0
COLD_TARGET_MS = 150.0


def warm(rounds: int = 300) -> dict[str, float]:
    """Median milliseconds per check of each template, after one warm-up check."""
    medians = {}
    for path in TEMPLATES:
        text = path.read_text(encoding="utf-8")
        check_source(text, path.name, REGISTRY)
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            check_source(text, path.name, REGISTRY)
            times.append((time.perf_counter() - start) * 1000)
        medians[path.name] = statistics.median(times)
    return medians


def cold(rounds: int) -> tuple[list[float], list[float]]:
    """Wall milliseconds of `dsl validate FILE` and of `python -c pass`, one of each per round."""
    for folder in ("dsl", "stdlib", "cli", "browser", "interpreter", "server"):
        compileall.compile_dir(ROOT / folder, quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    dsl = Path(sys.executable).parent / "dsl"
    command = [str(dsl), "validate", str(ROOT / "templates" / "login_keep_session.yaml")]
    baseline = [sys.executable, "-c", "pass"]

    def once(cmd: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        return (time.perf_counter() - start) * 1000

    once(command)  # the first run may fill the OS file cache
    checks, bare = [], []
    for i in range(rounds):
        pair = [(checks, command), (bare, baseline)]
        for times, cmd in pair if i % 2 == 0 else reversed(pair):
            times.append(once(cmd))
    return checks, bare


def _spread(times: list[float]) -> str:
    return f"median {statistics.median(times):.0f} ms (rounds {min(times):.0f}–{max(times):.0f})"


def main() -> None:
    medians = warm()
    print("warm check, median per template:")
    for name, ms in medians.items():
        print(f"  {name:<28} {ms:7.3f} ms  ({1000 / ms:8.0f} templates/s)")
    worst = max(medians.values())
    overall = len(medians) / sum(medians.values()) * 1000
    print(
        f"  all shipped templates: {overall:.0f} templates/s; slowest {worst:.3f} ms "
        f"(target < {TARGET_MS} ms: {'met' if worst < TARGET_MS else 'MISSED'})"
    )
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    checks, bare = cold(rounds)
    command_ms = statistics.median(checks)
    print(f"cold `dsl validate login_keep_session.yaml`, {rounds} interleaved rounds:")
    print(f"  dsl validate  {_spread(checks)}")
    print(f"  python -c pass {_spread(bare)}")
    print(
        f"  ratio {command_ms / statistics.median(bare):.1f}x; target < {COLD_TARGET_MS:.0f} ms: "
        f"{'met' if command_ms < COLD_TARGET_MS else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
