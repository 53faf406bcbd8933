"""What the benchmarks share: the checkout first on sys.path and bench/ off it (bench/mcp.py
would shadow the mcp package), a fixture site served by a process of its own, the no-op loop
template and how a spread of rounds reads. Each script imports it before anything of ours.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# bench/ last, behind every installed package: a process a benchmark spawns (the runtime's
# Markdown worker) runs the benchmark's script again as it starts, and finds _setup there.
sys.path[:] = [
    str(ROOT),
    *(p for p in sys.path if Path(p or ".").resolve() != HERE),
    str(HERE),
]

NOOP_STEPS = 2000
NOOP_TEMPLATE = f"""
template: noop_loop
version: 1.0.0
steps:
  - id: loop
    forEach: ${{{{ inputs.items }}}}
    concurrency: 5
    steps:
      - action: set
        with: {{}}
inputs:
  type: object
  properties:
    items: {{type: array, maxItems: {NOOP_STEPS}}}
limits: {{maxItems: {NOOP_STEPS}}}
"""


@contextmanager
def site_in_process(module: str = "tests.fixtures.server") -> Iterator[str]:
    """A fixture site (`python -m module`, which prints its base URL) in a process of its own,
    so that serving pages takes no time from either side of a comparison."""
    server = subprocess.Popen(
        [sys.executable, "-m", module], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(timeout=10)


def spread(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}"
