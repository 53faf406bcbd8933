"""`taskplate.toml`'s `[profiles]` (the data home's only): which of the operator's login profiles
remote principals may use, and how many profiles of their own they keep, for how long.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MOST = 20  # profiles of its own a remote principal may keep
UNUSED_DAYS = 30.0  # an own profile not used this long is removed
_PROFILE = re.compile(r"^[a-zA-Z0-9._-]{1,64}$")
_KEYS = ("most", "unused_days", "shared")


@dataclass(frozen=True)
class ProfileSettings:
    """`most` and `unused_days` bound a remote principal's own profiles; `shared` names, per
    operator profile, the principals that use it as it is (the only way one is shared)."""

    most: int = MOST
    unused_days: float = UNUSED_DAYS
    shared: dict[str, frozenset[str]] = field(default_factory=dict)

    def shared_with(self, principal: str | None) -> frozenset[str]:
        """The operator's profiles `principal` uses (a caller without a name: none)."""
        if principal is None:
            return frozenset()
        return frozenset(p for p, names in self.shared.items() if principal in names)


def profile_settings(table: Any, path: str, warn: Any) -> ProfileSettings:
    """The table read; what is wrong in it warned of (`warn`) and left at its default."""
    if not isinstance(table, dict):
        warn(f"{path}: profiles must be a table")
        return ProfileSettings()
    for key in sorted(set(table) - set(_KEYS)):
        warn(f"{path}: profiles.{key} ignored (want most, unused_days or shared)")
    most, unused = table.get("most", MOST), table.get("unused_days", UNUSED_DAYS)
    if isinstance(most, bool) or not isinstance(most, int) or not 0 <= most <= 10_000:
        warn(f"{path}: profiles.most ignored: want a whole number, 0 to 10000")
        most = MOST
    if isinstance(unused, bool) or not isinstance(unused, int | float) or not 0 < unused <= 3650:
        warn(f"{path}: profiles.unused_days ignored: want a number of days, above 0, at most 3650")
        unused = UNUSED_DAYS
    shared: dict[str, frozenset[str]] = {}
    given = table.get("shared", {})
    if not isinstance(given, dict):
        warn(f"{path}: profiles.shared ignored: want a table of profile = [principal, …]")
        given = {}
    for profile, names in given.items():
        if not _PROFILE.match(profile) or profile in (".", ".."):
            warn(f"{path}: profiles.shared.{profile} ignored: not a profile id")
        elif not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            warn(f"{path}: profiles.shared.{profile} ignored: want a list of principal names")
        else:
            shared[profile] = frozenset(names)
    return ProfileSettings(most, float(unused), shared)
