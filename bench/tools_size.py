"""What `tools/list` costs an agent on every turn: taskplate's (a default `dsl serve`, with the
templates as tools, each tool group alone, the templates' tools alone) beside Microsoft's
Playwright MCP server (the peer, pinned in bench/package.json), measured in one run over stdio.

Size is the JSON text of the `tools/list` result as the server sends it (compact separators),
in characters and in tokens of OpenAI's o200k_base encoding (`bpe-openai`, which ships its
vocabulary: nothing is downloaded). Other models' tokenizers differ by some percent; the ratio
between the two servers is what the target (taskplate's default no larger than the peer's)
is about. The lists are deterministic: one round is enough.

Run: .venv/bin/python bench/tools_size.py   (after `make bootstrap`: npm ci in bench/)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import anyio
import bpe_openai
from _setup import ROOT  # first: it takes bench/ off the path, where mcp.py would shadow mcp
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from taskplate.browser import find_chromium

PEER = ROOT / "bench" / "node_modules" / ".bin" / "playwright-mcp"
GROUPS = ("templates", "runs", "pages", "tabs", "authoring")
ENCODING = bpe_openai.get_encoding("o200k_base")


async def listed(params: StdioServerParameters) -> tuple[int, str]:
    """(the number of tools, the tools/list result's JSON text)."""
    async with Client(params) as client:
        result = await client.list_tools()
    tools = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in result.tools]
    return len(tools), json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False)


def ours(home: str, *args: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k != "TASKPLATE_TOOLS"}
    return StdioServerParameters(
        command=str(Path(sys.executable).parent / "dsl"),
        args=["serve", *args],
        env={**env, "TASKPLATE_HOME": home},
    )


def line(label: str, count: int, text: str, peer: str | None = None) -> None:
    tokens = len(ENCODING.encode(text))
    versus = ""
    if peer is not None:
        versus = f"  {len(text) / len(peer):.2f}x the peer's characters, "
        versus += f"{tokens / len(ENCODING.encode(peer)):.2f}x its tokens"
    print(f"{label:56} {count:3} tools {len(text):7,} chars {tokens:6,} tokens{versus}")


async def main() -> None:
    if not PEER.exists():
        raise SystemExit(f"{PEER} is missing: run `make bootstrap` (npm ci in bench/)")
    with tempfile.TemporaryDirectory() as home:
        peer_args = ["--headless", "--isolated", "--no-sandbox"]
        peer_args += ["--executable-path", find_chromium(headless=True)]
        peer_count, peer = await listed(StdioServerParameters(command=str(PEER), args=peer_args))
        line("@playwright/mcp (default)", peer_count, peer)
        default = await listed(ours(home))
        line("taskplate default (dsl serve)", *default, peer=peer)
        both = await listed(ours(home, "--template-tools"))
        line("taskplate --template-tools (templates,runs + templates)", *both, peer=peer)
        line("taskplate --tools all", *await listed(ours(home, "--tools", "all")), peer=peer)
        for group in GROUPS:
            line(f"  group {group}", *await listed(ours(home, "--tools", group)))
        # the templates' tools alone: beside one small group, with a budget none could pass
        alone = ("--tools", "authoring", "--tool-tokens", "1000000")
        plain = await listed(ours(home, *alone))
        offered = await listed(ours(home, *alone, "--template-tools"))
        print(
            f"  the templates as tools: {offered[0] - plain[0]} tools, "
            f"{len(offered[1]) - len(plain[1]):,} chars, "
            f"{len(ENCODING.encode(offered[1])) - len(ENCODING.encode(plain[1])):,} tokens "
            "(the shipped templates)"
        )


if __name__ == "__main__":
    anyio.run(main)
