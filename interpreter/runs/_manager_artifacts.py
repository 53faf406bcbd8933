"""The run manager's face for artifacts: a chunk of one read for its caller, and where the
actions of a tool call outside a run keep theirs. Reads and files only; acts on no run.
"""

from __future__ import annotations

from .._artifacts import ArtifactStore, Chunk, RunArtifacts
from .._principal import OPERATOR, Principal


class ManagerArtifacts:
    """What a caller of the manager asks of artifacts, by the manager's own methods: a caller
    never reaches into `artifacts` itself."""

    artifacts: ArtifactStore

    async def read_artifact(
        self,
        artifact_id: str,
        principal: Principal = OPERATOR,
        *,
        offset: int = 0,
        limit: int | None = None,
    ) -> Chunk:
        """A chunk of an artifact `principal` may see (another caller's: ARTIFACT_NOT_FOUND),
        from `offset`, at most `limit` bytes (None: to its end)."""
        return await self.artifacts.read(artifact_id, offset, limit, principal)

    def artifacts_for(self, owner_id: str, principal: Principal) -> RunArtifacts:
        """Where the actions of a tool call outside a run (a session, a scrape) keep artifacts:
        under `owner_id`, belonging to `principal`."""
        return RunArtifacts(self.artifacts, owner_id, principal.name)
