"""The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
tests/interop/package.json) against `dsl serve --transport http`: every server scenario that
applies to a server without the suite's own test tools."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.conftest import node_env, run_node
from tests.server.conftest import Served, start_http, stop

SUITE = "node_modules/@modelcontextprotocol/conformance/dist/index.js"
SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "logging-set-level",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
]


@pytest.fixture(scope="module")
def served(home: Path) -> Iterator[Served]:
    served = start_http(home)
    yield served
    stop(served)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_conformance_scenario_passes(
    scenario: str, node: Path, home: Path, served: Served
) -> None:
    done = run_node(
        node, [SUITE, "server", "--url", served.url, "--scenario", scenario], node_env(home)
    )
    report = done.stdout + done.stderr
    counted = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", report)
    assert counted is not None, report
    passed, total, failed = map(int, counted.groups())
    assert done.returncode == 0 and failed == 0 and passed == total > 0, report
