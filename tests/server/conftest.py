"""MCP servers for tests: `dsl serve` subprocesses over stdio and streamable HTTP on 127.0.0.1,
each on its own data home, plus the SDK client to drive them; and the same server built in this
process (`manager`, `server`: a run manager per test on a temp home, sharing the module's Chromium)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.server.mcpserver import MCPServer

from taskplate.browser import BrowserRuntime
from taskplate.interpreter import SHIPPED, Limits, RunManager, TemplateLibrary
from taskplate.server import build_server
from taskplate.stdlib import REGISTRY
from tests.fixtures.processes import end, free_port, listening

DSL = str(Path(sys.executable).parent / "dsl")
TEST_TEMPLATES = Path(__file__).parents[1] / "interpreter" / "templates"


@dataclass
class Served:
    url: str
    home: Path
    process: subprocess.Popen[bytes]
    log: Any = None


def env_for(home: Path) -> dict[str, str]:
    return {**os.environ, "TASKPLATE_HOME": str(home), "TASKPLATE_TEMPLATES": str(TEST_TEMPLATES)}


TAKEN = "could not listen on"  # what `dsl serve` says when its port is taken


def start_http(
    home: Path, *flags: str, env: dict[str, str] | None = None, wrapper: tuple[str, ...] = ()
) -> Served:
    """`wrapper`: a command that execs the server (same process), e.g. in another namespace.
    A port another test worker took between free_port and the server's bind is left for a new
    one (three tries)."""
    for _ in range(3):
        port = free_port()
        name = home.parent / f"serve-{port}.log"
        log = open(name, "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(
            [*wrapper, DSL, "serve", "--transport", "http", "--port", str(port), *flags],
            env={**env_for(home), **(env or {})},
            stdout=log,
            stderr=log,
        )
        # A start is a second on a quiet machine; 60 s leaves room for a loaded one (two servers
        # starting beside three other test workers on 2 cores took over 30 s at a load of 20).
        if listening(port, process, within_s=60):
            return Served(f"http://127.0.0.1:{port}/mcp", home, process, log)
        ended = process.poll()
        process.kill()
        process.wait()
        log.close()
        said = name.read_text()
        if TAKEN not in said:
            why = f"exited with {ended}" if ended is not None else "was not listening after 60 s"
            raise RuntimeError(f"dsl serve on port {port} {why}:\n{said}")
    raise RuntimeError(f"dsl serve found its port taken three times:\n{said}")


__all__ = ["end", "free_port"]  # imported from here by the server's tests


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


@asynccontextmanager
async def running_manager(
    home: Path, runtime: BrowserRuntime, *folders: Path, limits: Limits | None = None
) -> AsyncIterator[RunManager]:
    """A run manager over `home` serving the shipped templates and `folders`, on `runtime`."""
    library = TemplateLibrary(REGISTRY).load([SHIPPED, *folders])
    manager = RunManager(home, library, runtime=runtime, limits=limits)
    async with manager.running():
        yield manager


@pytest.fixture
def folders() -> tuple[Path, ...]:
    """The templates `manager` serves beside the shipped ones; a module overrides it."""
    return ()


@pytest.fixture
def limits() -> Limits | None:
    """`manager`'s limits (None: the defaults); a module overrides it."""
    return None


@pytest.fixture
async def manager(
    tmp_path: Path,
    runtime: BrowserRuntime,
    folders: tuple[Path, ...],
    limits: Limits | None,
    conversion_worker: None,
) -> AsyncIterator[RunManager]:
    async with running_manager(tmp_path / "home", runtime, *folders, limits=limits) as manager:
        yield manager
    assert manager.live == {}, "a run was left behind"
    assert manager.sessions.open_tabs == 0, "a tab was left open"


@pytest.fixture
def server(manager: RunManager) -> MCPServer:
    """`dsl serve`'s MCP server, built in this process over `manager`."""
    return build_server(manager)[0]
