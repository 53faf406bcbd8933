"""The run manager's face for runs whose owner process died: a queued one taken over, a running
one resumed here under its own id, task and principal (`Store.adopt`, one server wins), or
failed with why it cannot go on (`_resume.resume_plan`). Claims and starts; runs no step.
"""

from __future__ import annotations

import time
from typing import Any

from taskplate.contract import ErrorCode, RunStatus, TaskplateError, TrustLevel
from taskplate.dsl import Template

from .._library import TemplateLibrary
from ..store import RunRow, Store
from ._drain import note_resumed
from ._live import Live
from ._liveness import adoptable, fail, owner_is_dead, reap
from ._resume import RESUMES, not_resumable, resume_plan
from ._wiring import RunJob, RunWiring


class ManagerResumes:
    """Dead owners' runs, reaped by the manager's watch and before reads, or taken over by
    `take_over` (`dsl run --resume`). `adopts`: this process resumes others' running runs
    (`dsl serve` sets it); otherwise it leaves them to a server or to `dsl run --resume`."""

    store: Store
    library: TemplateLibrary
    wiring: RunWiring
    owner: str
    live: dict[str, Live]
    adopts: bool = False

    def _start(self, job: RunJob) -> bool:
        """Run the job in the manager's task group; False outside `running()`."""
        raise NotImplementedError

    async def reap(self) -> None:
        """Runs whose owner process died: queued ones are taken over here (unless they needed
        a secret input, never stored); running ones resumed (`adopts`), left for another, or
        failed (RUN_NOT_RESUMABLE); ones waiting for a person fail with RUN_INTERRUPTED."""
        await reap(self.store, self.owner, self._adopt, self._resume)

    async def take_over(self, run_id: str) -> bool:
        """`dsl run --resume`: the run goes on in this process when its owner is dead (True);
        False when it has ended or its owner still runs it (wait for it). RUN_NOT_FOUND, or
        RUN_NOT_RESUMABLE when it cannot: the run then ends failed with it, unless only its
        template is missing here (left as it is: `--templates` may name it)."""
        row = await self.store.run(run_id)
        if row is None:
            raise TaskplateError(
                ErrorCode.RUN_NOT_FOUND, f"no run {run_id}", "Use a runId from `dsl runs list`."
            )
        if RunStatus(row.status).terminal or not owner_is_dead(row):
            return False
        if row.status == str(RunStatus.QUEUED):
            if await self._adopt(row):
                return True
            raise not_resumable(run_id, "its template is not known here", "Run it again.")
        plan = resume_plan(self.library, row)
        if plan.refusal is not None:  # ended with it, unless another process may know it
            if plan.known and await self.store.adopt(run_id, row.owner, self.owner):
                await fail(self.store, run_id, plan.refusal)
            raise plan.refusal
        assert plan.template is not None
        return await self._take(row, plan.template)

    async def _resume(self, row: RunRow) -> TaskplateError | None:
        """A dead owner's running run: resumed here (when this process adopts), left for
        another (None), or the reason it cannot go on anywhere."""
        plan = resume_plan(self.library, row)
        if not plan.known and not self.adopts:
            return None  # a server, or `dsl run --resume --templates`, may know its template
        if plan.refusal is not None or plan.template is None:
            return plan.refusal
        if not self.adopts or not self._start_possible():
            return None
        await self._take(row, plan.template)
        return None

    async def _take(self, row: RunRow, template: Template) -> bool:
        """Claim the running run (one process wins) and go on with it from its checkpoints."""
        if not await self.store.adopt(row.run_id, row.owner, self.owner):
            return False  # another process took it
        moved = {"from": row.owner, "by": self.owner, "at": time.time()}
        options = {**row.options, RESUMES: [*row.options.get(RESUMES, []), moved]}
        await self.store.update_run(row.run_id, options=options)
        await note_resumed(self.store, row.run_id, row.owner, self.owner)  # durable-drain
        return self._start(self._job(row, template, options, resumed=True))

    async def _adopt(self, row: RunRow) -> bool:
        """A dead owner's queued run run here (True), unless this process cannot run it."""
        template = adoptable(self.library, row)
        if template is None or not self._start_possible():
            return False
        if not await self.store.claim(row.run_id, row.owner, self.owner):
            return True  # another process took it
        return self._start(self._job(row, template, row.options, resumed=False))

    def _start_possible(self) -> bool:
        raise NotImplementedError

    def _job(
        self, row: RunRow, template: Template, options: dict[str, Any], *, resumed: bool
    ) -> RunJob:
        self.live[row.run_id] = Live()
        trust = TrustLevel(options.get("trust", "local"))
        network = self.wiring.network_for(template, options, trust, stored=True)
        return RunJob(
            row.run_id,
            template,
            row.inputs,
            options,
            trust,
            None,
            options.get("profileId"),
            principal=row.principal,
            network=network,
            resumed=resumed,
        )
