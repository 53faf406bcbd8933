"""The answers a first `dsl serve` gives while its SDK loads (`server/start_answers.json`):
recorded from the SDK's own answers at real starts of this checkout's server, one per
handshake version (initialize, then tools/list) and one for the 2026-07-28 versions
(server/discover and tools/list in envelopes), each with nothing kept before it.
`dsl docs --write` writes them last, since they are made for the contents of every other file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from taskplate.server import made_for

CLIENT = {"name": "taskplate-docs", "version": "1.0"}
CAPABILITIES: dict[str, Any] = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}}
SECONDS = 120


def _line(request_id: int | None, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return json.dumps(message) + "\n"


def _handshake(version: str) -> str:
    initialize = {"protocolVersion": version, "capabilities": CAPABILITIES, "clientInfo": CLIENT}
    return (
        _line(1, "initialize", initialize)
        + _line(None, "notifications/initialized")
        + _line(2, "tools/list")
    )


def _modern() -> str:
    lines, request_id = "", 0
    for version in MODERN_PROTOCOL_VERSIONS:
        meta = {
            f"io.modelcontextprotocol/{key}": value
            for key, value in (
                ("protocolVersion", version),
                ("clientCapabilities", CAPABILITIES),
                ("clientInfo", CLIENT),
            )
        }
        for method in ("server/discover", "tools/list"):
            request_id += 1
            lines += _line(request_id, method, {"_meta": meta})
    return lines


def _start(requests: str, env: dict[str, str]) -> None:
    """One `dsl serve` on stdio that reads `requests`, answers them and ends with stdin."""
    done = subprocess.run(
        [sys.executable, "-c", "from taskplate.cli.main import main; main()", "serve"],
        input=requests.encode(),
        env=env,
        capture_output=True,
        timeout=SECONDS,
    )
    if done.returncode != 0:
        raise RuntimeError(f"dsl serve failed: {done.stderr.decode(errors='replace')[-2000:]}")


def _answers(requests: str, scratch: Path) -> dict[str, Any]:
    """What one start, with nothing kept before it, kept of its SDK's answers to `requests`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TASKPLATE_")}
    env.update(XDG_CACHE_HOME=str(scratch / "cache"), TASKPLATE_HOME=str(scratch))
    _start(requests, env)
    kept: dict[str, Any] = json.loads(next((scratch / "cache").rglob("serve-*.json")).read_bytes())
    return kept


def recorded_start_answers() -> str:
    """The shipped start answers as the file's text, made from real starts (each in a folder
    of its own: a start writes its answers file whole)."""
    conversations = [_handshake(v) for v in HANDSHAKE_PROTOCOL_VERSIONS] + [_modern()]
    with tempfile.TemporaryDirectory(prefix="taskplate-start-") as scratch:
        folders = [Path(scratch, str(n)) for n in range(len(conversations))]
        with ThreadPoolExecutor(max_workers=2) as pool:
            found = list(pool.map(_answers, conversations, folders))
    merged = found[0]
    if any(kept.get("fingerprint") != merged.get("fingerprint") for kept in found):
        raise RuntimeError("the code changed while the start answers were recorded")
    for kept in found[1:]:
        for method, answers in kept["answers"].items():
            merged["answers"].setdefault(method, {}).update(answers)
    merged.pop("fingerprint")
    return json.dumps({"made_for": made_for(), **merged}, indent=1, sort_keys=True) + "\n"
