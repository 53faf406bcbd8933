"""Real MCP servers that nobody here wrote, plugged in as providers: `mcp-server-time` (PyPI,
in the test extra) and the npm reference servers pinned in tests/interop (installed by
`make bootstrap`). Each test writes its own template folder and taskplate.toml."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.processes import end, free_port, listening, process_alive

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


alive = process_alive


def everything_on(port: int, log: Path) -> subprocess.Popen[bytes]:
    """server-everything started on streamable HTTP at `port`, its output added to `log`."""
    assert Path(EVERYTHING).exists(), "run make bootstrap (npm ci in tests/interop)"
    with open(log, "ab") as out:
        return subprocess.Popen(
            [EVERYTHING, "streamableHttp"],
            env={**os.environ, "PORT": str(port)},
            stdout=out,
            stderr=out,
        )


@pytest.fixture(scope="module")
def everything_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """server-everything on streamable HTTP on a free loopback port; its URL."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("everything") / "server.log"
    process = everything_on(port, log_path)
    try:
        if not listening(port, process, within_s=60):
            raise RuntimeError(log_path.read_text())
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        end(process)
