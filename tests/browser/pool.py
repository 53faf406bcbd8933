"""Real remote browsers for the pool's tests: `playwright run-server` processes (the driver that
ships with the Python package) and Chromium with a CDP port, each killable and fully cleaned up.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from playwright._impl._driver import compute_driver_executable, get_driver_env

from taskplate.browser import find_chromium
from tests.fixtures.processes import free_port

# Every browser these tests start carries this argument: the leftover check finds them by it.
MARKER = f"--taskplate-pool-test={uuid.uuid4().hex}"


def launch_headers(site_port: int) -> tuple[tuple[str, str], ...]:
    """A run-server has no browser of its own here: the launch options name the local Chromium
    (and map the fixture hosts as the local runtime's tests do)."""
    rules = f"--host-resolver-rules=MAP public.test 127.0.0.1:{site_port}"
    options = {
        "executablePath": find_chromium(),
        "headless": True,
        "args": ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", MARKER, rules],
    }
    return (("x-playwright-launch-options", json.dumps(options)),)


def processes_with(text: str) -> list[int]:
    """Processes whose command line holds `text` (this machine's, by /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


def wait_gone(text: str, timeout_s: float = 20) -> list[int]:
    """Waits for every process holding `text` to end; answers those still running."""
    deadline = time.monotonic() + timeout_s
    while (left := processes_with(text)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def _wait_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert process.poll() is None, "the browser server exited at start"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise AssertionError(f"nothing answered on port {port}")


class BrowserServer:
    """One remote browser endpoint on a free port: `kind` "ws" (a Playwright server) or "cdp"
    (Chromium itself). `kill()` is SIGKILL; leaving stops whatever is left."""

    def __init__(self, kind: str = "ws") -> None:
        self.kind = kind
        self.port = free_port()
        self.profile: str | None = None  # the CDP Chromium's profile
        # The Playwright server's TMPDIR: the profiles of the browsers it launches go there,
        # and a killed server cannot remove them (the test does).
        self.tmp: str | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.kind == "ws":
            return f"ws://127.0.0.1:{self.port}/"
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> BrowserServer:
        if self.kind == "ws":
            node, cli = compute_driver_executable()
            command = [node, cli, "run-server", "--host", "127.0.0.1", "--port", str(self.port)]
            self.tmp = tempfile.mkdtemp(prefix="taskplate-pw-server-")
            env = {**get_driver_env(), "TMPDIR": self.tmp}
            command.append("--unsafe")  # lets the client name the executable (launch options)
        else:
            self.profile = tempfile.mkdtemp(prefix="taskplate-cdp-")
            command = [
                find_chromium(), "--headless", "--no-sandbox", "--disable-gpu", MARKER,
                f"--remote-debugging-port={self.port}", f"--user-data-dir={self.profile}",
                "about:blank",
            ]  # fmt: skip
            env = dict(os.environ)
        self.process = subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            _wait_port(self.port, self.process)
        except BaseException:
            self.__exit__()
            raise
        return self

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            # A Playwright server closes its browsers and exits on SIGINT; on SIGTERM, once a
            # client has connected, it hangs (10 s of every test's teardown until killed).
            self.process.send_signal(signal.SIGINT if self.kind == "ws" else signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for folder in (self.profile, self.tmp):
            if folder is not None:
                # Chromium's children may outlive it for a moment; the folder goes after them.
                wait_gone(f"--user-data-dir={folder}")
                shutil.rmtree(folder, ignore_errors=True)

    def tree(self) -> set[int]:
        """The server's process and all its descendants, now."""
        assert self.process is not None
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    stat = (entry / "stat").read_text()
                    parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        tree, grew = {self.process.pid}, True
        while grew:
            more = {pid for pid, parent in parents.items() if parent in tree} - tree
            tree |= more
            grew = bool(more)
        return tree


@contextlib.contextmanager
def browser_servers(*kinds: str) -> Iterator[list[BrowserServer]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(BrowserServer(kind)) for kind in kinds]
