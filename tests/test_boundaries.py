"""The server holds to the named doors of the layers under it: it asks the run manager by its
methods (never reading its `live` runs or its `store`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
SERVER = ROOT / "taskplate" / "server"


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
        "stop_if_canceled, record_call, save_recorded); add one there instead"
    )
