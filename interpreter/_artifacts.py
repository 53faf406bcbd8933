"""Artifacts: bytes written where the store keeps them (files under the data home for SQLite,
the database for PostgreSQL), read back in chunks, expired by TTL counted from their run's
terminal time (the data is then deleted). Bytes and rows only.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from taskplate.contract import ErrorCode, TaskplateError

from ._principal import OPERATOR, Principal
from .store import Store

DEFAULT_TTL_MS = 86_400_000


@dataclass
class Chunk:
    meta: dict[str, Any]
    data: bytes
    offset: int

    @property
    def complete(self) -> bool:
        return self.offset + len(self.data) >= int(self.meta["size"])


class ArtifactStore:
    def __init__(self, root: Path, store: Store, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        self.root = root
        self.store = store
        self.ttl_ms = ttl_ms
        self.bytes = store.artifact_bytes(root)

    async def save(
        self, run_id: str, name: str, data: bytes, mime_type: str, principal: str | None = None
    ) -> str:
        """`principal`: the caller whose run or session made it (who may read it)."""
        artifact_id = f"art_{uuid.uuid4().hex[:20]}"
        await self.bytes.write(run_id, artifact_id, data)
        digest = await _digest(data)
        await self.store.insert_artifact(
            artifact_id, run_id, name, mime_type, len(data), digest, principal
        )
        return artifact_id

    async def _expired(self, meta: dict[str, Any]) -> bool:
        if meta["expired"]:
            return True
        run = await self.store.run(meta["run_id"])
        # Artifacts of tool calls belong to no run: their TTL counts from their creation.
        ended = run.ended_at if run is not None else meta["created_at"]
        return ended is not None and (time.time() - ended) * 1000 > self.ttl_ms

    async def _drop(self, meta: dict[str, Any]) -> None:
        await self.bytes.drop(meta["run_id"], meta["artifact_id"])
        await self.store.mark_expired(meta["artifact_id"])

    async def read(
        self,
        artifact_id: str,
        offset: int = 0,
        limit: int | None = None,
        principal: Principal = OPERATOR,
    ) -> Chunk:
        """A chunk of an artifact `principal` may see; another caller's is answered as unknown."""
        meta = await self.store.artifact(artifact_id)
        if meta is None or not principal.sees(meta.get("principal")):
            raise TaskplateError(
                ErrorCode.ARTIFACT_NOT_FOUND,
                f"no artifact {artifact_id}",
                "Use an artifactId from get_task_run.",
            )
        if await self._expired(meta):
            await self._drop(meta)
            raise TaskplateError(
                ErrorCode.ARTIFACT_EXPIRED,
                f"artifact {artifact_id} expired and was deleted",
                "Run the task again to produce it anew.",
            )
        if offset < 0 or offset > meta["size"]:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"offset {offset} is outside 0..{meta['size']}",
                "Start at 0.",
            )
        data = await self.bytes.read(meta["run_id"], artifact_id, offset, limit)
        return Chunk(meta, data, offset)

    async def sweep(self) -> int:
        """Delete the data of every expired artifact; answers how many went."""
        count = 0
        for meta in await self.store.live_artifacts():
            if await self._expired(meta):
                await self._drop(meta)
                count += 1
        return count


@dataclass
class RunArtifacts:
    """The artifact sink actions of one run write to."""

    store: ArtifactStore
    run_id: str
    principal: str | None = None  # the caller whose run or session it is

    async def save(self, name: str, data: bytes, mime_type: str) -> str:
        return await self.store.save(self.run_id, name, data, mime_type, self.principal)


async def _digest(data: bytes) -> str:
    """The bytes' SHA-256; of megabytes (a large result, a run's checkpoint) in a worker thread,
    which hashlib lets run beside the event loop (it lets go of the interpreter meanwhile)."""
    if len(data) < 1 << 20:
        return hashlib.sha256(data).hexdigest()
    return await anyio.to_thread.run_sync(lambda: hashlib.sha256(data).hexdigest())
