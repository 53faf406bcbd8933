"""What a run has finished, kept in the run store as it finishes so another process can resume it
(`Checkpoints`): every step's whole output outside loop items (a loop's own is rebuilt from its
items), every outermost loop item's result and what it enqueued, and a mark before each L1/L2
step acts. Secrets are masked, never stored;
a value larger than the run's inline bound goes to an artifact of the run. It decides nothing
about whether a run may resume (the run manager does) and runs no step.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import Step
from taskplate.stdlib import json_text

from ._step_failures import StepFailed
from .store import Store

STEP, ITEM, ACT = "step:", "item:", "act:"
SECRET_MASK = "***"


@dataclass
class Checkpoints:
    """One run's checkpoints: those a resumed run `found` (read once, `load`) and those it keeps.

    Keys: `step:<path>` (a step outside any item, not a loop: its output), `item:<loop
    path>:<index>` (an outermost loop's item: {"result", "added"}; the loop itself is rebuilt
    from them), `act:<placed path>` (an L1/L2 step started)."""

    store: Store
    run_id: str
    artifacts: Any  # RunArtifacts: where a value larger than `inline_bytes` goes
    secrets: list[str]  # the run's, masked in every value kept (the list grows as they are typed)
    inline_bytes: int = 262_144
    found: dict[str, Any] = field(default_factory=dict)  # key -> value, from the dead process
    order: list[str] = field(default_factory=list)  # found keys in the order they were written
    _seq: itertools.count[int] = field(default_factory=itertools.count)

    @property
    def resuming(self) -> bool:
        return bool(self.found)

    @classmethod
    async def load(
        cls, store: Store, run_id: str, artifacts: Any, secrets: list[str], inline_bytes: int
    ) -> Checkpoints:
        """The checkpoints a run kept before, to resume it (large values read back)."""
        kept = cls(store, run_id, artifacts, secrets, inline_bytes)
        rows = await store.checkpoints(run_id)
        for row in rows:
            text = row["value"]
            if row["artifact_id"] is not None:
                chunk = await artifacts.store.read(row["artifact_id"])
                text = chunk.data.decode()
            kept.found[row["key"]] = json.loads(text) if text is not None else None
            kept.order.append(row["key"])
        kept._seq = itertools.count(max((int(r["seq"]) for r in rows), default=-1) + 1)
        return kept

    # -- what a resumed run reads --------------------------------------------------------------
    def step(self, step: Step) -> tuple[bool, Any]:
        """(True, its output) when the step finished before (outside any item)."""
        key = STEP + step.path
        return (key in self.found, self.found.get(key))

    def items(self, loop: Step) -> list[tuple[int, dict[str, Any]]]:
        """An outermost loop's finished items, (index, {"result", "added"}), as they finished."""
        prefix = f"{ITEM}{loop.path}:"
        return [
            (int(key[len(prefix) :]), self.found[key])
            for key in self.order
            if key.startswith(prefix) and key in self.found
        ]

    def restart(self, group: Step, placed_path: str) -> None:
        """A group marked `onResume: restart` is run again whole, finished or not: it and what
        it finished and started before are forgotten (its L1/L2 steps are not refused as in
        flight)."""
        inside = (STEP + group.path + "/", ACT + placed_path + "/")
        for key in [k for k in self.found if k.startswith(inside) or k == STEP + group.path]:
            del self.found[key]

    def refuse_in_flight(
        self, step: Step, level: Level, placed_path: str, item: int | None
    ) -> None:
        """An L1/L2 step the dead process started and never finished is not run again blindly:
        it fails with STEP_MAY_HAVE_TAKEN_EFFECT, naming it."""
        if level is Level.L0 or ACT + placed_path not in self.found:
            return
        raise StepFailed(
            step,
            TaskplateError(
                ErrorCode.STEP_MAY_HAVE_TAKEN_EFFECT,
                f"step {placed_path} ({level}) was running when the run's process stopped; it may "
                "have taken effect, so it is not run again",
                "Check the site for what the step did, then run the template again (put steps "
                "that may be repeated in a group with onResume: restart).",
                {"step": placed_path},
            ),
            item,
        )

    # -- what a run keeps ----------------------------------------------------------------------
    async def keep_step(self, step: Step, value: Any) -> None:
        await self._keep(STEP + step.path, value)

    async def keep_item(self, loop: Step, index: int, result: Any, added: list[Any]) -> None:
        """Written before the item's slot frees (with what else was kept back): a process killed
        loses at most the items in flight, however late a loaded machine's flush would run."""
        await self._keep(f"{ITEM}{loop.path}:{index}", {"result": result, "added": added})
        await self.store.flush()

    async def acting(self, placed_path: str) -> None:
        """An L1/L2 step is about to act: the mark is written (not kept back) before it does."""
        await self._keep(ACT + placed_path, None)
        await self.store.flush()

    async def _keep(self, key: str, value: Any) -> None:
        # numbered before anything awaits: a resumed growing loop admits its items again in this
        # order, so two items finishing together keep the order they grew the queue in
        seq = next(self._seq)
        text = self._masked(await json_text(value))
        artifact_id = None
        if len(text) > self.inline_bytes:
            artifact_id = await self.artifacts.save(
                "checkpoint.json", text.encode(), "application/json"
            )
        self.store.keep_checkpoint(
            self.run_id, key, seq, None if artifact_id else text, artifact_id
        )

    def _masked(self, text: str) -> str:
        for secret in self.secrets:
            if secret:
                text = text.replace(json.dumps(secret, ensure_ascii=False)[1:-1], SECRET_MASK)
        return text
