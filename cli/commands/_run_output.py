"""What `dsl run` shows of a run while it runs and at its end: the progress bar on a terminal,
and the exit code of each final status. Shared by a new run and a resumed one (`--resume`).
"""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from taskplate.contract import RunStatus
from taskplate.interpreter import Progress as RunProgress
from taskplate.interpreter import time_left

EXIT = {
    RunStatus.SUCCEEDED: 0,
    RunStatus.PARTIAL_SUCCESS: 0,
    RunStatus.FAILED: 1,
    RunStatus.CANCELED: 130,
}


class Bar:
    """A rich progress bar of items (or steps) on stderr, only when stderr is a terminal."""

    def __init__(self, label: str) -> None:
        self.console = Console(stderr=True)
        self.enabled = self.console.is_terminal
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[failed]} failed"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("{task.fields[left]}"),
            console=self.console,
        )
        self.task = self.progress.add_task(label, total=None, failed=0, rate="", left="")

    def update(self, p: RunProgress) -> None:
        if not self.enabled:
            return
        done, total, _ = p.counted()
        elapsed = self.progress.tasks[0].elapsed or 0
        rate = f"{done / elapsed:.1f}/s" if elapsed > 0 and done else ""
        left = time_left(p.to_json())  # the runs page's estimate
        left = ("grows; " if p.growing else "") + (f"about {left} left" if left else "")
        self.progress.update(
            self.task,
            total=total or None,
            completed=done,
            failed=p.items_failed,
            rate=rate,
            left=left,
        )
