"""MCP servers for tests: `dsl serve` subprocesses over stdio and streamable HTTP on 127.0.0.1,
each on its own data home, plus the SDK client to drive them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters

DSL = str(Path(sys.executable).parent / "dsl")
TEST_TEMPLATES = Path(__file__).parents[1] / "interpreter" / "templates"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    url: str
    home: Path
    process: subprocess.Popen[bytes]
    log: Any = None


def env_for(home: Path) -> dict[str, str]:
    return {**os.environ, "TASKPLATE_HOME": str(home), "TASKPLATE_TEMPLATES": str(TEST_TEMPLATES)}


def start_http(
    home: Path, *flags: str, env: dict[str, str] | None = None, wrapper: tuple[str, ...] = ()
) -> Served:
    """`wrapper`: a command that execs the server (same process), e.g. in another namespace."""
    port = free_port()
    log = open(home.parent / f"serve-{port}.log", "wb")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(
        [*wrapper, DSL, "serve", "--transport", "http", "--port", str(port), *flags],
        env={**env_for(home), **(env or {})},
        stdout=log,
        stderr=log,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return Served(f"http://127.0.0.1:{port}/mcp", home, process, log)
        except OSError:
            time.sleep(0.1)
    process.kill()
    process.wait()
    log.close()
    raise RuntimeError((home.parent / f"serve-{port}.log").read_text())


def end(process: subprocess.Popen[bytes], log: Any) -> None:
    """A child server ended: asked to stop, killed after 15 s; its log closed."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if log is not None:
        log.close()


def stop(served: Served) -> None:
    end(served.process, served.log)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def local_http(home: Path) -> Iterator[Served]:
    served = start_http(home, "--trust", "local")
    yield served
    stop(served)


@pytest.fixture(scope="module")
def remote_http(home: Path) -> Iterator[Served]:
    served = start_http(home)
    yield served
    stop(served)


@pytest.fixture
def stdio(home: Path) -> StdioServerParameters:
    return StdioServerParameters(command=DSL, args=["serve"], env=env_for(home))
