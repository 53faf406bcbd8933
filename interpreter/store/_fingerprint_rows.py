"""What templates' selectors matched in succeeded runs, as both SQL backends keep it: a template
version's fingerprints by place (`fingerprints`, `keep_fingerprints`), bounded. Rows only.
"""

from __future__ import annotations

import json
import time
from typing import Any

FINGERPRINT_VERSIONS = 3  # the template versions whose fingerprints are kept, newest first
FINGERPRINT_PLACES = 500  # the selectors of one template version kept, at most


class FingerprintStatements:
    """The statements, with the backend's placeholder."""

    def __init__(self, p: str) -> None:
        self.fingerprints = (
            f"SELECT place, seen FROM fingerprints WHERE template_id = {p}"
            f" AND template_version = {p} ORDER BY place"
        )
        self.keep_fingerprint = (
            "INSERT INTO fingerprints (template_id, template_version, place, seen, updated_at)"
            f" VALUES ({p}, {p}, {p}, {p}, {p}) ON CONFLICT (template_id, template_version, place)"
            " DO UPDATE SET seen = EXCLUDED.seen, updated_at = EXCLUDED.updated_at"
        )
        self.drop_old_fingerprints = (
            f"DELETE FROM fingerprints WHERE template_id = {p} AND template_version NOT IN"
            " (SELECT template_version FROM (SELECT template_version, MAX(updated_at) AS t"
            f" FROM fingerprints WHERE template_id = {p} GROUP BY template_version"
            f" ORDER BY t DESC LIMIT {FINGERPRINT_VERSIONS}) AS newest)"
        )


class FingerprintRows:
    """The store's calls of fingerprints, over the backend's `_execute` and `_all`."""

    prints: FingerprintStatements

    async def _execute(self, query: str, params: tuple[Any, ...] = ()) -> int:
        raise NotImplementedError

    async def _all(self, query: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        raise NotImplementedError

    async def fingerprints(self, template_id: str, version: str) -> dict[str, dict[str, Any]]:
        """What a template version's selectors matched in its last succeeded run, by place."""
        rows = await self._all(self.prints.fingerprints, (template_id, version))
        return {r["place"]: json.loads(r["seen"]) for r in rows}

    async def keep_fingerprints(
        self, template_id: str, version: str, seen: dict[str, dict[str, Any]]
    ) -> None:
        """A succeeded run's fingerprints, each replacing its place's; at most
        FINGERPRINT_PLACES places a version (a new place past them is not kept) and the
        FINGERPRINT_VERSIONS versions last kept."""
        known = set(await self.fingerprints(template_id, version))
        room = FINGERPRINT_PLACES - len(known)
        now = time.time()
        for place, kept in seen.items():
            if place not in known:
                if room <= 0:
                    continue
                room -= 1
            text = json.dumps(kept, ensure_ascii=False, separators=(",", ":"))
            await self._execute(
                self.prints.keep_fingerprint, (template_id, version, place, text, now)
            )
        await self._execute(self.prints.drop_old_fingerprints, (template_id, template_id))
