"""Real MCP servers that nobody here wrote, plugged in as providers: `mcp-server-time` (PyPI,
in the test extra) and the npm reference servers pinned in tests/interop (installed by
`make bootstrap`). Each test writes its own template folder and taskplate.toml."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
TIME = str(BIN / "mcp-server-time")
INTEROP = Path(__file__).parents[1] / "interop"
NODE_BIN = INTEROP / "node_modules" / ".bin"
EVERYTHING = str(NODE_BIN / "mcp-server-everything")
FILESYSTEM = str(NODE_BIN / "mcp-server-filesystem")

NOW = """\
template: what_time
version: 1.0.0
name: What time is it
trust: [local, remote]
inputs:
  type: object
  properties:
    zone: {type: string, default: UTC}
steps:
  - id: now
    action: mcp.time.get_current_time
    with: {timezone: "${{ inputs.zone }}"}
output:
  datetime: ${{ steps.now.datetime }}
  dst: ${{ steps.now.is_dst }}
"""


def toml_list(items: list[str]) -> str:
    return "[" + ", ".join(f'"{i}"' for i in items) + "]"


def write_folder(folder: Path, config: str, templates: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "taskplate.toml").write_text(config, encoding="utf-8")
    for name, text in templates.items():
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return folder


def time_config(name: str = "time", extra: str = "") -> str:
    return f"[providers.{name}]\ncommand = {toml_list([TIME, '--local-timezone', 'UTC'])}\n{extra}"


def children(pid: int | None = None) -> set[int]:
    """Every process descending from `pid` (default: this one), read from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    root = pid or os.getpid()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def everything_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """server-everything on streamable HTTP on a free loopback port; its URL."""
    assert Path(EVERYTHING).exists(), "run make bootstrap (npm ci in tests/interop)"
    port = free_port()
    log_path = tmp_path_factory.mktemp("everything") / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [EVERYTHING, "streamableHttp"],
            env={**os.environ, "PORT": str(port)},
            stdout=log,
            stderr=log,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                        break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(log_path.read_text()) from None
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
