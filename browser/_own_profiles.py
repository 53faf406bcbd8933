"""A remote principal's profiles: a folder of its own beside the operator's, the profiles the
operator shares with it read from the operator's folder, at most `most` of its own, unused ones
removed after `unused_s`. The server decides whose view a caller gets (interpreter/runs/_wiring).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError

from ._profiles import ProfileStore

log = logging.getLogger("taskplate.profiles")
MOST = 20  # profiles a remote principal may keep (taskplate.toml [profiles] most)
UNUSED_DAYS = 30  # an own profile not used this long is removed ([profiles] unused_days)


class OwnProfiles(ProfileStore):
    """The profiles one principal names: `root` holds its own; an id in `shared` is the
    operator's (`operator`), published there too. Any other id is its own, created on first use
    while it has fewer than `most`; each use stamps the folder, and a folder unused for
    `unused_s` is removed before a new one is counted (and by `sweep`)."""

    def __init__(
        self,
        root: Path,
        operator: ProfileStore,
        shared: frozenset[str] = frozenset(),
        most: int = MOST,
        unused_s: float = UNUSED_DAYS * 86400,
    ) -> None:
        super().__init__(root)
        self.operator, self.shared, self.most, self.unused_s = operator, shared, most, unused_s
        self._publishing = operator._publishing  # one publish per folder in flight, whoever asks

    def folder(self, profile_id: Any) -> Path:
        if isinstance(profile_id, str) and profile_id in self.shared:
            return self.operator.folder(profile_id)
        return super().folder(profile_id)

    def ensure(self, profile_id: str) -> Path:
        if isinstance(profile_id, str) and profile_id in self.shared:
            return self.operator.ensure(profile_id)
        folder = self.folder(profile_id)
        if not (folder / "meta.json").exists():
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            with self._lock(self.root, "create.lock"):  # one count at a time, every process
                if not (folder / "meta.json").exists():
                    self._room_for(profile_id)
                    folder = super().ensure(profile_id)
        else:
            folder = super().ensure(profile_id)
        os.utime(folder)  # used now: what expiry reads
        return folder

    def _room_for(self, profile_id: str) -> None:
        """The unused ones removed; INVALID_PARAMETER when `most` are left (nothing created)."""
        kept = sweep(self.root, self.unused_s)
        if len(kept) >= self.most:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"profile {profile_id} cannot be created: you have {len(kept)} profiles, "
                f"at most {self.most}",
                "Use one of your profiles (the default is master); profiles unused for "
                f"{self.unused_s / 86400:g} days are removed.",
                {"profileId": profile_id, "most": self.most},
            )


def own_folders(root: Path) -> list[Path]:
    """The profile folders under `root` (its lock files aside)."""
    try:
        return [p for p in root.iterdir() if p.is_dir() and not p.is_symlink()]
    except FileNotFoundError:
        return []


def sweep(root: Path, unused_s: float) -> list[Path]:
    """Profiles under `root` unused for `unused_s` removed; the ones kept."""
    kept: list[Path] = []
    cutoff = time.time() - unused_s
    for folder in own_folders(root):
        try:
            unused = folder.stat().st_mtime < cutoff
        except FileNotFoundError:
            continue
        if unused:
            log.info("profile %s of %s: removed, unused since its last use", folder.name, root)
            shutil.rmtree(folder, ignore_errors=True)
        else:
            kept.append(folder)
    return kept
