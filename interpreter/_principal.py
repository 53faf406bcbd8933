"""Who a run, its artifacts and a browser session belong to: the caller that started them, as a
`Principal` (a bearer token's principal, the local user, or an HTTP session). The operator sees all.

Names only; the server decides who is calling, the run store keeps the name with the run.
"""

from __future__ import annotations

from dataclasses import dataclass

# The principal of the local user: stdio, a loopback caller under `--trust local`, and every run
# stored before runs had principals. A token's principal name never contains ':' (see server/transports/_auth).
LOCAL = "local"


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
    def listed(self) -> str | None:
        """The principal a list is filtered by: None lists every run (the operator's view)."""
        return None if self.operator else self.name

    @property
    def lists_nothing(self) -> bool:
        """A caller the transport cannot tell apart owns no list: it keeps its ids."""
        return not self.operator and self.name is None


OPERATOR = Principal(LOCAL, operator=True)
