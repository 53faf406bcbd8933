"""Who a run, its artifacts, a browser session, a login profile and a saved template belong to:
the caller that made them, as a `Principal` (a token's principal, the local user, an HTTP
session). The operator sees all.

Names only; the server decides who is calling, the run store keeps the name with the run.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

# The principal of the local user: stdio, a loopback caller under `--trust local`, and every run
# stored before runs had principals. A token's principal name never contains ':' (see server/transports/_auth).
LOCAL = "local"


ANYONE = "@anyone"  # the space of callers the transport cannot tell apart (name None)
_SPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@~-]{0,99}")


def space_of(name: str | None) -> str:
    """The folder name of a principal's own profiles and saved templates, under the data home's
    `principals/`: its name (a token's `principal=NAME`, or `token:…`/`session:…` with `~`
    for `:`, which no name holds), else a digest; never `.`, `..` or a path."""
    if name is None:
        return ANYONE
    folder = name.replace(":", "~")
    if "~" not in name and _SPACE.fullmatch(folder):  # so one name makes one folder
        return folder
    return "~" + hashlib.sha256(name.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Principal:
    """A caller as ownership sees it. `name` is stored with what it starts; None: a caller the
    transport cannot tell apart (stateless HTTP without a token), which lists nothing and
    reaches only what such callers started, by its unguessable id. An `operator` (stdio, a
    local token, loopback under --trust local) sees and acts on everything, as the runs page."""

    name: str | None
    operator: bool = False

    def sees(self, owner: str | None) -> bool:
        """True when this caller may see and act on what `owner` started."""
        return self.operator or owner == self.name

    @property
    def space(self) -> str | None:
        """Whose profiles and saved templates this caller names: None, the operator's (the data
        home's `profiles/` and `templates/`), else its own folder (`space_of`)."""
        return None if self.operator else space_of(self.name)

    @property
    def listed(self) -> str | None:
        """The principal a list is filtered by: None lists every run (the operator's view)."""
        return None if self.operator else self.name

    @property
    def lists_nothing(self) -> bool:
        """A caller the transport cannot tell apart owns no list: it keeps its ids."""
        return not self.operator and self.name is None


OPERATOR = Principal(LOCAL, operator=True)
