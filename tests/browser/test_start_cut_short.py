"""A browser start cut short (a client that leaves during the warm-up) leaves nothing behind:
Playwright's driver is started whole and closed with the runtime, not left to the garbage
collector past the event loop's end ("Event loop is closed" on stderr, a process left over)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

CUT_SHORT = """
import sys, anyio
from taskplate.browser import BrowserRuntime

async def cut_short(after: float) -> None:
    runtime = BrowserRuntime()
    with anyio.move_on_after(after):
        await runtime.browser()
    await runtime.close()

for after in (0.01, 0.1, 0.3, 0.6, 1.2):  # the driver starting, the browser launching
    anyio.run(cut_short, after)
print("ended")
"""


def test_a_browser_start_cut_short_leaves_no_error_and_no_process() -> None:
    name, value = "TASKPLATE_TEST_MARK", uuid.uuid4().hex  # inherited by all it starts
    env = {**os.environ, name: value}
    done = subprocess.run(
        [sys.executable, "-c", CUT_SHORT], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0 and done.stdout.strip() == "ended", done.stderr
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    deadline = time.monotonic() + 15
    while left := _marked(f"{name}={value}"):
        assert time.monotonic() < deadline, f"still running: {left}"
        time.sleep(0.1)


def _marked(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and f"{mark}\0".encode() in (entry / "environ").read_bytes() + b"\0"
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found
