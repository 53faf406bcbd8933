"""What this process holds of a run it owns (`Live`): its end, its execution and scope, its
listeners, trace and caller, and its newest progress. Apart from the run's execution, which the
run views (`_run_views`) do not import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

from taskplate.stdlib import CallerModel

from .._confirm import Asker
from .._executor import Execution
from .._step_log import Progress, StepRow
from .._tracing import RunTrace


@dataclass
class Live:
    """What this process holds of a run it owns."""

    done: anyio.Event = field(default_factory=anyio.Event)
    execution: Execution | None = None
    scope: anyio.CancelScope | None = None
    progress_listeners: list[Callable[[Progress], None]] = field(default_factory=list)
    step_listeners: list[Callable[[StepRow], None]] = field(default_factory=list)
    trace: RunTrace | None = None
    asker: Asker | None = None  # the caller's way to its user (confirm, hand_over)
    sampler: CallerModel | None = None  # the caller's language model, if it has one
    progress: Progress | None = None  # the newest progress, and whether the store has it
    progress_unsaved: bool = False
    progress_saved_at: float = 0.0  # time.monotonic() of its last write
    progress_floor: tuple[int, int] = (0, 0)  # a resumed run's items and steps done shown before
    released: bool = False  # its server stopped: another one goes on with it (not settled)
