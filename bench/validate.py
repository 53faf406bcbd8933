"""Benchmark of static checking: templates validated per second (warm, in process) on the
shipped templates, and the cold start of `dsl validate` for one file (a new process).

Run: .venv/bin/python bench/validate.py
"""

from __future__ import annotations

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
TARGET_MS = 5.0


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


def cold(runs: int = 5) -> tuple[float, float]:
    """Median wall milliseconds of `dsl validate FILE`, and of a bare `python -c pass` baseline."""
    dsl = Path(sys.executable).parent / "dsl"
    command = [str(dsl), "validate", str(TEMPLATES[0])]
    baseline = [sys.executable, "-c", "pass"]

    def median_ms(cmd: list[str]) -> float:
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    return median_ms(command), median_ms(baseline)


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
    command_ms, python_ms = cold()
    print(
        f"cold `dsl validate {TEMPLATES[0].name}`: {command_ms:.0f} ms "
        f"(bare interpreter start {python_ms:.0f} ms, ratio {command_ms / python_ms:.1f}x)"
    )


if __name__ == "__main__":
    main()
