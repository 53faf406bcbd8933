"""The server holds to the named doors of the layers under it: it asks the run manager by its
methods (never reading its `live` runs or its `store`), and only providers/_sdk.py reaches the
MCP SDK's private names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
SERVER = ROOT / "server"
PRODUCT = ["cli", "server", "interpreter", "stdlib", "browser", "providers", "dsl", "contract"]


def _reads(folder: Path, names: set[str]) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in names:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    return found


def test_server_never_reads_the_run_managers_live_runs_or_store() -> None:
    assert _reads(SERVER, {"live", "store"}) == [], (
        "server/ asks the RunManager by named methods (is_live, until_ended, stop_listening, "
        "stop_if_canceled, keep_call, save_kept_calls); add one there instead"
    )


def test_only_the_sdk_adapter_reaches_the_sdks_private_names() -> None:
    """A private SDK module (`mcp.x._y`) or attribute (`._lowlevel_server`, `._tool_input_schema`)
    and its tool-argument internals are reached in providers/_sdk.py only."""
    private = re.compile(
        r"\bmcp(\.[a-z_]+)*\._[a-z]|\._lowlevel_server|\._tool_input_schema|"
        r"\bfunc_metadata\b"
    )
    found = []
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "providers" / "_sdk.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if private.search(line.split("#")[0]):
                    found.append(f"{path.relative_to(ROOT)}:{number}")
    assert found == [], "reach the SDK's private names through taskplate.providers (_sdk.py)"
