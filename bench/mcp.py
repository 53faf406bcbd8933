"""What one template call saves an MCP client, in one run, on the same `dsl serve` (stdio):
extract 50 local pages with one run_task_template call, beside 50 × (navigate +
get_page_content) tool calls on one session, and the ratio.

Run: .venv/bin/python bench/mcp.py [pages]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

# This file is named mcp.py: its own folder must not shadow the mcp package.
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402
from mcp.client.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from tests.fixtures.server import serve  # noqa: E402


async def main(pages: int) -> None:
    with serve() as site, tempfile.TemporaryDirectory() as home:
        urls = [site.url(f"/{'article' if i % 2 else 'recipe'}.html?n={i}") for i in range(pages)]
        params = StdioServerParameters(
            command=str(Path(sys.executable).parent / "dsl"),
            args=["serve"],
            env={**os.environ, "TASKPLATE_HOME": home},
        )
        async with Client(params) as client:
            await client.call_tool("get_runtime_profile", {})  # start the browser before timing

            start = time.perf_counter()
            session = (await client.call_tool("create_session", {})).structured_content["sessionId"]  # type: ignore[index]
            calls = 1
            for url in urls:
                await client.call_tool("navigate", {"sessionId": session, "url": url})
                content = await client.call_tool(
                    "get_page_content", {"sessionId": session, "format": "markdown"}
                )
                assert not content.is_error, content
                calls += 2
            one_by_one = time.perf_counter() - start
            await client.call_tool("close_session", {"sessionId": session})

            start = time.perf_counter()
            run = await client.call_tool(
                "run_task_template",
                {
                    "templateId": "batch_extract_pages",
                    "inputs": {"urls": urls, "concurrency": 5, "waitFor": 1},
                    "options": {"mode": "sync"},
                },
            )
            one_call = time.perf_counter() - start
            assert run.structured_content and run.structured_content["status"] == "succeeded", (
                run.structured_content
            )
    print(f"{pages} local pages as Markdown through one `dsl serve` (stdio)")
    print(f"  {calls} tool calls (navigate + get_page_content) : {one_by_one:6.2f} s")
    print(f"  1 run_task_template call (concurrency 5)      : {one_call:6.2f} s")
    print(
        f"  ratio                                          : {one_by_one / one_call:6.2f}x faster with the template, {calls}x fewer calls"
    )


if __name__ == "__main__":
    anyio.run(main, int(sys.argv[1]) if len(sys.argv) > 1 else 50)
