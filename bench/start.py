"""How long an MCP client waits for a stdio server to start: the process started, `initialize`
sent and answered, `notifications/initialized` and `tools/list` sent, the tool list read, the
process killed. `dsl serve` against Microsoft's Playwright MCP server (the peer, pinned in
bench/package.json), in interleaved rounds (the order rotates), median and spread.

`dsl serve` answers from the answers its SDK server gave at an earlier start (kept in the cache
folder, server/transports/_front.py); the third way is its first start, with nothing kept (a fresh cache
folder each round): what a client waits the first time after an install or an upgrade, answered
by the SDK's server (nothing is shipped), whose answers are kept for the next start.

Run: .venv/bin/python bench/start.py [rounds]   (after `make bootstrap`: npm ci in bench/)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _setup import ROOT, spread

from taskplate.browser import find_chromium

PEER = ROOT / "bench" / "node_modules" / ".bin" / "playwright-mcp"
DSL = Path(sys.executable).parent / "dsl"
TARGET = 0.6  # ours at most this share of the peer's time (issue 31)
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}},
        "clientInfo": {"name": "bench-start", "version": "1.0"},
    },
}
LIST = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def line(message: dict[str, object]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def answer(process: subprocess.Popen[bytes], request_id: int) -> dict[str, object]:
    assert process.stdout is not None
    while True:
        got = process.stdout.readline()
        if not got:
            raise SystemExit(f"{process.args} ended before answering request {request_id}")
        message = json.loads(got)
        if message.get("id") == request_id and "method" not in message:
            assert "result" in message, message
            return message


def started(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Seconds from the start of the process to the tool list read, and how many tools."""
    begin = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert process.stdin is not None
    try:
        process.stdin.write(line(INITIALIZE))
        process.stdin.flush()
        answer(process, 1)
        process.stdin.write(b"".join(line(m) for m in LIST))
        process.stdin.flush()
        tools = answer(process, 2)["result"]["tools"]  # type: ignore[index]
        seconds = time.perf_counter() - begin
    finally:
        process.kill()
        process.wait()
    return seconds, len(tools)


def main(rounds: int) -> None:
    if not PEER.exists():
        raise SystemExit(f"{PEER} is missing: run `make bootstrap` (npm ci in bench/)")
    with tempfile.TemporaryDirectory() as scratch:
        home, cache = Path(scratch) / "home", Path(scratch) / "cache"
        ours_env = {**os.environ, "TASKPLATE_HOME": str(home), "XDG_CACHE_HOME": str(cache)}
        peer = [
            str(PEER),
            *("--headless", "--isolated", "--no-sandbox"),
            *("--executable-path", find_chromium(headless=True)),
            *("--output-dir", str(Path(scratch) / "peer")),
        ]

        def first_start() -> tuple[float, int]:
            fresh = tempfile.mkdtemp(dir=scratch)
            return started([str(DSL), "serve"], {**ours_env, "XDG_CACHE_HOME": fresh})

        ways = {
            "@playwright/mcp": lambda: started(peer, dict(os.environ)),
            "dsl serve": lambda: started([str(DSL), "serve"], ours_env),
            "dsl serve, first start (nothing kept)": first_start,
        }
        started([str(DSL), "serve"], ours_env)  # keeps the answers, as any earlier start would
        times: dict[str, list[float]] = {name: [] for name in ways}
        tools: dict[str, int] = {}
        loads = []
        names = list(ways)
        for n in range(rounds):  # interleaved: each round starts with another way
            loads.append(os.getloadavg()[0])
            for name in names[n % 3 :] + names[: n % 3]:
                seconds, tools[name] = ways[name]()
                times[name].append(seconds)
            print(
                f"  round {n + 1}: "
                + ", ".join(f"{name} {times[name][-1]:.3f} s" for name in names),
                flush=True,
            )
    print(
        f"start to tool list over stdio, {rounds} rounds interleaved; load average "
        f"{min(loads):.1f}-{max(loads):.1f} during the rounds"
    )
    print(f"  {'server':<40} {'median s':>9} {'spread':>13} {'tools':>6}")
    for name in names:
        print(
            f"  {name:<40} {statistics.median(times[name]):9.3f} {spread(times[name]):>13}"
            f" {tools[name]:6d}"
        )
    peer_name, ours, first = names
    for name in (ours, first):
        ratios = [o / p for o, p in zip(times[name], times[peer_name], strict=True)]
        median = statistics.median(ratios)
        verdict = "met" if median <= TARGET else "NOT met"
        print(
            f"  {name} / the peer: {median:.2f}x (median of the rounds' ratios, spread "
            f"{spread(ratios)}; target <= {TARGET}: {verdict})"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
