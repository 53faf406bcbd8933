"""What one template call saves an MCP client, in one run, on the same local pages: Microsoft's
Playwright MCP server page by page (browser_navigate + browser_snapshot, the peer, pinned in
bench/package.json), taskplate page by page (navigate + get_page_content), and taskplate's
batch_extract_pages in one run_task_template call (and get_task_run for the pages of items past the
answer budget). Prints pages/s, tool calls and the characters the agent receives (and the tokens
they are, 4 characters each, as the answer budget counts them); rounds are interleaved (the order
rotates) and medians compared.

Three corpora of local article pages: a mixed one (4 static pages in 5, 1 whose article is written
by script: 40 and 10 of 50) read by the peer page by page, by taskplate page by page and by one
batch_extract_pages call with its default options (engine auto); and an all-script one read by
batch_extract_pages with engine auto and with engine browser, to show what auto costs where it
saves nothing; and a static one (no script at all) read page by page by the peer and by
taskplate.

Beside the wall clock, each way's CPU time per page: the server's whole process tree (the
server, its Playwright driver, Chromium and every renderer; processes that ended included),
read from /proc before and after each way's turn. On a shared, loaded machine this moves far
less than pages/s, so it says where the cost is even when the wall-clock ratio cannot be trusted.

Run: .venv/bin/python bench/mcp.py [pages] [rounds]   (after `make bootstrap`: npm ci in bench/)
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from _setup import ROOT  # first: it takes bench/ off the path, where this mcp.py would shadow mcp
from _setup import site_in_process as serve_in_process
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from taskplate.browser import find_chromium

PEER = ROOT / "bench" / "node_modules" / ".bin" / "playwright-mcp"
# The peer is given the browser taskplate runs itself (TASKPLATE_CHROMIUM, else what
# find_chromium picks for headless work), so both read the pages with the same Chromium.
CHROMIUM = find_chromium(headless=True)
Way = Callable[[list[str]], Awaitable[tuple[int, int]]]  # pages → (tool calls, characters)


TICK = os.sysconf("SC_CLK_TCK")


def _proc_table() -> dict[int, tuple[int, float]]:
    """pid -> (parent, CPU seconds of it and of its children it has reaped)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            table[int(entry.name)] = (int(fields[1]), sum(map(int, fields[11:15])) / TICK)
    return table


def tree_cpu(root: int) -> float:
    """CPU seconds used so far by a process and everything under it."""
    table = _proc_table()
    kids: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        kids.setdefault(parent, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += table.get(pid, (0, 0.0))[1]
        todo.extend(kids.get(pid, []))
    return total


def server_pid(*words: str) -> int:
    """Our child process one of whose arguments ends with each of these (a stdio server)."""
    me = os.getpid()
    for pid, (parent, _) in _proc_table().items():
        if parent == me:
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if all(any(a.endswith(w) for a in argv.split("\0")) for w in words):
                return pid
    raise SystemExit(f"no server process {words} found")


def received(result: object) -> int:
    """Characters of text the agent reads in one tool answer."""
    return sum(len(getattr(c, "text", "") or "") for c in getattr(result, "content", []))


async def call(client: Client, tool: str, args: dict[str, object]) -> tuple[int, object]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, (tool, result.content)
    return received(result), result


def peer_way(peer: Client) -> Way:
    async def run(urls: list[str]) -> tuple[int, int]:
        chars = 0
        for url in urls:
            chars += (await call(peer, "browser_navigate", {"url": url}))[0]
            chars += (await call(peer, "browser_snapshot", {}))[0]
        return 2 * len(urls), chars

    return run


def taskplate_page_by_page(ours: Client) -> Way:
    """One session for every round, opened by the warm-up's call, as the peer keeps the browser
    context its first call opened: each side's context (a new one's first page costs Chromium
    a renderer, 0.1 to 0.5 s) is opened once, before the rounds, as an agent reading many pages
    opens it once."""
    sessions: list[str] = []

    async def run(urls: list[str]) -> tuple[int, int]:
        calls = 2 * len(urls)
        if not sessions:
            _, created = await call(ours, "create_session", {})
            sessions.append(created.structured_content["sessionId"])  # type: ignore[attr-defined]
            calls += 1
        chars = 0
        for url in urls:
            chars += (await call(ours, "navigate", {"sessionId": sessions[0], "url": url}))[0]
            content = {"sessionId": sessions[0], "format": "markdown"}
            chars += (await call(ours, "get_page_content", content))[0]
        return calls, chars

    return run


def taskplate_one_call(ours: Client, **inputs: object) -> Way:
    async def run(urls: list[str]) -> tuple[int, int]:
        chars, answer = await call(
            ours,
            "run_task_template",
            {
                "templateId": "batch_extract_pages",
                "inputs": {"urls": urls, **inputs},
                "options": {"mode": "sync"},
            },
        )
        run = answer.structured_content  # type: ignore[attr-defined]
        assert run["status"] == "succeeded", run
        calls, cursor = 1, (run.get("resultPage") or {}).get("nextCursor")
        while cursor:  # the items that did not fit the answer budget, page by page
            more, page = await call(ours, "get_task_run", {"runId": run["runId"], "cursor": cursor})
            chars, calls = chars + more, calls + 1
            cursor = page.structured_content["resultPage"]["nextCursor"]  # type: ignore[attr-defined]
        return calls, chars

    return run


STATIC = ("article", "recipe", "story", "react-article")
SCRIPTED = "script-article"  # its article is written into an empty <main> by script


def mixed(base: str, pages: int) -> list[str]:
    """4 static article pages in 5, the fifth written by script (40 and 10 of 50)."""
    return [
        f"{base}/{SCRIPTED if i % 5 == 4 else STATIC[i % len(STATIC)]}.html?n={i}"
        for i in range(pages)
    ]


def static(base: str, pages: int) -> list[str]:
    """Article pages with no script at all."""
    return [f"{base}/{STATIC[i % len(STATIC)]}.html?n={i}" for i in range(pages)]


def all_script(base: str, pages: int) -> list[str]:
    return [f"{base}/{SCRIPTED}.html?n={i}" for i in range(pages)]


async def measure(
    ways: dict[str, Way], trees: dict[str, int], urls: list[str], rounds: int
) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, tuple[int, int]]]:
    """pages/s and CPU ms a page of each way, round by round (interleaved), and its calls and
    characters."""
    names = list(ways)
    speed: dict[str, list[float]] = {name: [] for name in ways}
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    answers: dict[str, tuple[int, int]] = {}
    for n in range(rounds):  # interleaved: each round starts with another way
        for name in names[n % len(names) :] + names[: n % len(names)]:
            used = tree_cpu(trees[name])
            start = time.perf_counter()
            answers[name] = await ways[name](urls)
            speed[name].append(len(urls) / (time.perf_counter() - start))
            cpu[name].append((tree_cpu(trees[name]) - used) / len(urls) * 1000)
        print(
            f"  round {n + 1}: "
            + ", ".join(f"{speed[k][-1]:.2f} pages/s ({cpu[k][-1]:.0f} ms CPU)" for k in names),
            flush=True,
        )
    return speed, cpu, answers


def report(
    title: str,
    speed: dict[str, list[float]],
    cpu: dict[str, list[float]],
    answers: dict[str, tuple[int, int]],
) -> None:
    print(title)
    print(
        f"  {'way':<72} {'pages/s':>8} {'spread':>12} {'CPU ms/page':>12} {'spread':>10}"
        f" {'calls':>6} {'chars':>9} {'tokens':>8}"
    )
    for name in speed:
        low, high = min(speed[name]), max(speed[name])
        print(
            f"  {name:<72} {statistics.median(speed[name]):8.2f} {low:5.2f}-{high:<6.2f}"
            f" {statistics.median(cpu[name]):12.0f} {min(cpu[name]):4.0f}-{max(cpu[name]):<5.0f}"
            f" {answers[name][0]:6d} {answers[name][1]:9d} {answers[name][1] // 4:8d}"
        )


def ratio(label: str, faster: list[float], slower: list[float], target: str, met: bool) -> None:
    ratios = [f / s for f, s in zip(faster, slower, strict=True)]
    print(
        f"  {label}: {statistics.median(ratios):.2f}x (median of {len(ratios)} rounds, spread "
        f"{min(ratios):.2f}-{max(ratios):.2f}; target {target}: {'met' if met else 'NOT met'})"
    )


async def main(pages: int, rounds: int) -> None:
    if not PEER.exists():
        raise SystemExit(f"{PEER} is missing: run `make bootstrap` (npm ci in bench/)")
    with serve_in_process() as base, tempfile.TemporaryDirectory() as home:
        ours_params = StdioServerParameters(
            command=str(Path(sys.executable).parent / "dsl"),
            args=["serve"],
            env={**os.environ, "TASKPLATE_HOME": home},
        )
        peer_params = StdioServerParameters(
            command=str(PEER),
            args=[
                *("--headless", "--isolated", "--no-sandbox", "--executable-path", CHROMIUM),
                *("--output-dir", str(Path(home) / "peer")),
            ],
        )
        async with Client(ours_params) as ours, Client(peer_params) as peer:
            peer_name = "@playwright/mcp page by page (browser_navigate + browser_snapshot)"
            one_call = "taskplate batch_extract_pages, one call (default options: engine auto)"
            browser = "taskplate batch_extract_pages, one call, engine browser"
            ways = {
                peer_name: peer_way(peer),
                "taskplate page by page (navigate + get_page_content)": taskplate_page_by_page(
                    ours
                ),
                one_call: taskplate_one_call(ours),
            }
            script_ways = {
                one_call: taskplate_one_call(ours),
                browser: taskplate_one_call(ours, engine="browser"),
            }
            ours_pid, peer_pid = server_pid("/dsl", "serve"), server_pid("/playwright-mcp")
            trees = {name: ours_pid for name in [*ways, browser]} | {peer_name: peer_pid}
            for way in [*ways.values(), *script_ways.values()]:  # warm: browsers up, pages cached
                await way(mixed(base, 5))
            print(f"mixed corpus: {pages} pages, {pages // 5} of them written by script")
            speed, cpu, answers = await measure(ways, trees, mixed(base, pages), rounds)
            page_by_page = "taskplate page by page (navigate + get_page_content)"
            static_ways = {peer_name: ways[peer_name], page_by_page: ways[page_by_page]}
            print(f"static corpus: {pages} pages without script")
            t_speed, t_cpu, t_answers = await measure(
                static_ways, trees, static(base, pages), rounds
            )
            print(f"all-script corpus: {pages} pages written by script")
            s_speed, s_cpu, s_answers = await measure(
                script_ways, trees, all_script(base, pages), rounds
            )
    load = os.getloadavg()[0]
    print(
        f"{pages} local pages as Markdown / snapshots, one stdio server each, {rounds} rounds "
        f"interleaved; load average {load:.1f} at the end; both browsers: {CHROMIUM}"
    )
    report(
        f"mixed corpus ({pages - pages // 5} static, {pages // 5} script-written)",
        speed,
        cpu,
        answers,
    )
    ratio(
        "one call vs the peer page by page, wall clock",
        speed[one_call],
        speed[peer_name],
        ">= 5",
        statistics.median(speed[one_call]) >= 5 * statistics.median(speed[peer_name]),
    )
    cpu_ratios = [p / o for o, p in zip(cpu[one_call], cpu[peer_name], strict=True)]
    print(
        f"  CPU per page, the peer's over the one call's: {statistics.median(cpu_ratios):.2f}x "
        f"(rounds {min(cpu_ratios):.2f}-{max(cpu_ratios):.2f}; server trees, Chromium included)"
    )
    report(f"static corpus ({pages} pages, no script)", t_speed, t_cpu, t_answers)
    ratio(
        "page by page, taskplate vs the peer, wall clock",
        t_speed[page_by_page],
        t_speed[peer_name],
        ">= 1",
        statistics.median(t_speed[page_by_page]) >= statistics.median(t_speed[peer_name]),
    )
    report(f"all-script corpus ({pages} pages)", s_speed, s_cpu, s_answers)
    slower = [b / a for a, b in zip(s_speed[one_call], s_speed[browser], strict=True)]
    print(
        f"  auto's time over browser's: {statistics.median(slower):.2f}x (median of {rounds} "
        f"rounds, spread {min(slower):.2f}-{max(slower):.2f}; target <= 1.1: "
        f"{'met' if statistics.median(slower) <= 1.1 else 'NOT met'})"
    )


if __name__ == "__main__":
    anyio.run(
        main,
        int(sys.argv[1]) if len(sys.argv) > 1 else 50,
        int(sys.argv[2]) if len(sys.argv) > 2 else 5,
    )
