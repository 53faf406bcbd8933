"""Real MCP clients in Node, installed by `make bootstrap` (npm ci here): the TypeScript SDK,
the Inspector CLI and the conformance suite, run on the Node 22 of the `node` npm package."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
NODE = HERE / "node_modules" / "node" / "bin" / "node"
HOW = (
    "run `make bootstrap` (it installs Debian's nodejs and npm when missing, then `npm ci` in "
    "tests/interop), or by hand: `apt-get install -y nodejs npm && cd tests/interop && npm ci`"
)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


def require_node(node: Path) -> Path:
    """Node 22 from tests/interop/node_modules; a missing install fails, never skips."""
    if not node.exists():
        pytest.fail(f"Node and the MCP clients are not installed in {node.parents[2]}: {HOW}")
    return node


@pytest.fixture(scope="session")
def node() -> Path:
    return require_node(NODE)


def node_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a Node client: Node 22 first on PATH, a HOME of its own (the Inspector
    keeps a catalog there), and the test's data home for the servers it starts."""
    from tests.server.conftest import env_for

    return {
        **env_for(home),
        "PATH": f"{NODE.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(home.parent / "node-home"),
        "NO_COLOR": "1",
        **extra,
    }


def run_node(
    node: Path, args: list[str], env: dict[str, str], timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(node), *args],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def last_json(text: str) -> Any:
    """The JSON a client printed (the Inspector pretty-prints one document)."""
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        if not text:
            raise  # nothing printed: the caller shows what the client said on stderr
        return json.loads(text.splitlines()[-1])
