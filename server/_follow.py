"""Following a run a client waits for: MCP progress notifications (when it gave a progress
token) and the run's step log as log notifications (at the level it asked for).

Only reports; the run goes on the same whether anyone listens.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import Context

from taskplate.interpreter import Progress, RunManager, StepRow, progress_text

from ._logging import LEVELS, LogLevels, send, step_entry

FORWARD_S = 0.3  # how often a follower passes on what the run did


async def follow(
    manager: RunManager, ctx: Context, run_id: str, levels: LogLevels
) -> dict[str, Any]:
    """Wait for the run, reporting as it goes; answers its terminal state."""
    wanted = levels.wanted(ctx)
    latest: Progress | None = None
    sent: tuple[int, int] | None = None
    entries: list[tuple[str, dict[str, Any]]] = []

    def seen(progress: Progress) -> None:
        nonlocal latest
        latest = progress

    def stepped(row: StepRow) -> None:
        level, data = step_entry(run_id, row)
        if wanted is not None and LEVELS.index(level) >= LEVELS.index(wanted):
            entries.append((level, data))

    async def report() -> None:
        # A message counts as sent only once it has gone: a send cut short is sent again.
        nonlocal sent
        while entries:
            level, data = entries[0]
            await send(ctx, wanted, level, data)
            entries.pop(0)
        if latest is None:
            return
        done, total, _ = latest.counted()
        if sent != (done, total):  # what the runs page says of it, in the same words
            await ctx.report_progress(done, total or None, progress_text(latest.to_json()))
            sent = (done, total)

    finished = anyio.Event()

    async def forward() -> None:
        # Stopped between sends, never in the middle of one.
        while not finished.is_set():
            await report()
            with anyio.move_on_after(FORWARD_S):
                await finished.wait()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(forward)
            try:
                answer: dict[str, Any] = await manager.wait(run_id, seen, stepped)
            finally:
                finished.set()
    finally:  # a follower that stops early (2026-07-28: a question went out) stops listening
        manager.stop_listening(run_id, seen, stepped)
    # The last state, so that a client's bar ends full: the run's own view of it when it moved
    # on further than the listener heard (a short run may end before its listener is in).
    if isinstance(answer.get("progress"), dict):
        final = Progress.from_json(answer["progress"])
        if latest is None or final.counted()[0] >= latest.counted()[0]:
            latest = final
    await report()
    status = answer.get("status")
    await send(
        ctx,
        wanted,
        "notice" if status == "succeeded" else "error" if status == "failed" else "warning",
        {"runId": run_id, "status": status, "message": f"run {run_id} {status}"},
    )
    return answer
