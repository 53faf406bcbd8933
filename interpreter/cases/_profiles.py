"""The profiles a test case's run sees: a scratch folder of its own for each run, so that a
case never changes the operator's logins, and taskplate's own profile state (its versions) is
the same on every run of the case, recorded, replayed or live. Never writes the operator's.
"""

from __future__ import annotations

from pathlib import Path

from taskplate.browser import ProfileStore


class CaseProfiles(ProfileStore):
    """Profiles in a scratch folder, each at version 0 when the run first reads it: with the
    operator's login state (cookies and storage) when `seeded_from` is given (a live run, a
    recording), else empty (a replay, which the recording answers whatever the cookies)."""

    def __init__(self, root: Path, seeded_from: ProfileStore | None) -> None:
        super().__init__(root)
        self.seeded_from = seeded_from

    def ensure(self, profile_id: str) -> Path:
        first = not (self.folder(profile_id) / "meta.json").exists()
        folder = super().ensure(profile_id)
        if first and self.seeded_from is not None:
            self._write(folder, self.seeded_from.read(profile_id).state, 0)
        return folder
