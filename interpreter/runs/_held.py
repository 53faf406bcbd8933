"""The runs this process holds, as the server and the watch act on them by name: whether one is
here, waiting for it to end, its listeners, a cancel acted on. The run manager is one of these.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

from ..store import Store
from ._live import Live
from ._queue import RunQueue


class HeldRuns:
    """What a process does with the runs it holds (`live`), on top of the store they are in."""

    live: dict[str, Live]
    store: Store
    queue: RunQueue

    def _cancel_here(self, run_id: str, force: bool) -> None:
        """A cancel request acted on, if the run is this process's: however it came (a call
        here, the store's notice, the watch's read of the flags), and as often as it comes.
        Cooperative: the items in flight finish, no step starts; force: the steps in flight are
        aborted now."""
        live = self.live.get(run_id)
        if live is None:
            return  # not here
        if live.execution is None:
            self.queue.drop(run_id)  # queued: it ends canceled, never started
            return
        live.execution.cancel_requested = True
        if force and live.scope is not None:
            live.scope.cancel()

    # What the server asks, by name: it reads neither `live` nor `store`.
    def is_live(self, run_id: str) -> bool:
        """Whether this process holds the run (it has not ended here)."""
        return run_id in self.live

    async def until_ended(self, run_id: str, timeout_s: float) -> None:
        """Waits, at most `timeout_s`, for a run this process holds to end; for one it does not
        hold (another process's, or ended) it just waits the time out."""
        live = self.live.get(run_id)
        with anyio.move_on_after(timeout_s):
            if live is not None:
                await live.done.wait()
            else:
                await anyio.sleep(timeout_s)

    def stop_listening(self, run_id: str, *listeners: Callable[..., None]) -> None:
        """Takes a follower's progress and step listeners off the run (those it still has)."""
        live = self.live.get(run_id)
        if live is None:
            return
        for heard in (live.progress_listeners, live.step_listeners):
            for listener in listeners:
                if listener in heard:
                    heard.remove(listener)

    async def stop_if_canceled(self, run_id: str) -> None:
        """A run canceled while it waits for its caller's answer stops now: its scope ends."""
        if await self.store.cancel_flag(run_id):
            live = self.live.get(run_id)
            if live is not None and live.scope is not None:
                live.scope.cancel()
