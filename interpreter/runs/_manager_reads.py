"""The run manager's face for reading runs and their artifacts: what the tools, the runs page and
the CLI ask of runs, answered by `RunReads` and the artifact store. Reads only; acts on no run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._artifacts import ArtifactStore, Chunk, RunArtifacts
from .._principal import OPERATOR, Principal
from .._step_log import Progress, StepRecord
from ..store import RunRow
from ._inputs import Limits
from ._views import RunReads


class ManagerReads:
    """Every read of runs and artifacts a caller of the manager makes, by the manager's own
    methods: a caller never reaches into `reads` or `artifacts` itself."""

    reads: RunReads
    artifacts: ArtifactStore
    limits: Limits

    async def row(self, run_id: str, principal: Principal = OPERATOR) -> RunRow:
        """The run, if `principal` may see it (else RUN_NOT_FOUND, as for an unknown id)."""
        return await self.reads.row(run_id, principal)

    async def describe(
        self, run_id: str, include_steps: bool = False, principal: Principal = OPERATOR
    ) -> dict[str, Any]:
        """The run as get_task_run answers it."""
        return await self.reads.describe(run_id, include_steps, principal)

    async def wait(
        self,
        run_id: str,
        on_progress: Callable[[Progress], None] | None = None,
        on_step: Callable[[StepRecord], None] | None = None,
    ) -> dict[str, Any]:
        """The run's answer once it is terminal, its progress and steps heard meanwhile."""
        return await self.reads.wait(run_id, on_progress, on_step)

    async def run_rows(
        self,
        status: str | None,
        template_id: str | None,
        limit: int,
        offset: int,
        principal: Principal = OPERATOR,
    ) -> tuple[list[RunRow], int]:
        """A page of the runs `principal` may see, newest first, and how many match."""
        return await self.reads.run_rows(status, template_id, limit, offset, principal)

    async def rows_before(
        self, principal: Principal, last: RunRow | None, limit: int
    ) -> list[RunRow]:
        """Up to `limit` runs `principal` may see, older than `last` (a keyset page)."""
        return await self.reads.rows_before(principal, last, limit)

    async def step_rows(self, run_id: str) -> list[dict[str, Any]]:
        """A run's step executions as the store keeps them, in order."""
        return await self.reads.step_rows(run_id)

    async def artifact_meta(self, artifact_id: str) -> dict[str, Any] | None:
        """An artifact's row (its run, name, MIME type, size), None when there is none."""
        return await self.reads.artifact_meta(artifact_id)

    async def read_artifact(
        self,
        artifact_id: str,
        offset: int = 0,
        limit: int | None = None,
        principal: Principal = OPERATOR,
    ) -> Chunk:
        """A chunk of an artifact `principal` may see (another caller's: ARTIFACT_NOT_FOUND)."""
        return await self.artifacts.read(artifact_id, offset, limit, principal)

    def artifacts_for(self, owner_id: str, principal: Principal) -> RunArtifacts:
        """Where the actions of a tool call outside a run (a session, a scrape) keep artifacts:
        under `owner_id`, belonging to `principal`."""
        return RunArtifacts(self.artifacts, owner_id, principal.name)

    def run_limits(self) -> Limits:
        """The limits every run and answer of this manager keeps (a plain value)."""
        return self.limits

    # last: inside the class body, `list` names this method from here on
    async def list(
        self,
        status: str | None = None,
        template_id: str | None = None,
        limit: int = 20,
        offset: int = 0,
        principal: Principal = OPERATOR,
    ) -> dict[str, Any]:
        """A page of runs as list_task_runs answers it."""
        return await self.reads.list(status, template_id, limit, offset, principal)
