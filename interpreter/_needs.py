"""Sibling steps in order: one after another, or, when any names `needs`, each as soon as the
steps it needs have finished. Knows nothing of what a step does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from taskplate.dsl import Step

from ._step_failures import Canceled, StepFailed


async def run_siblings(steps: list[Step], run_one: Callable[[Step], Awaitable[None]]) -> None:
    """The first failure (or cancellation) ends the block, as itself, not in a group."""
    if not any(s.needs for s in steps):
        for step in steps:
            await run_one(step)
        return
    finished = {s.id: anyio.Event() for s in steps if s.id}

    async def one(step: Step) -> None:
        for need in step.needs:
            await finished[need].wait()
        try:
            await run_one(step)
        finally:
            if step.id:
                finished[step.id].set()

    try:
        async with anyio.create_task_group() as tg:
            for step in steps:
                tg.start_soon(one, step)
    except* StepFailed as group:
        raise group.exceptions[0] from None
    except* Canceled:
        raise Canceled() from None
