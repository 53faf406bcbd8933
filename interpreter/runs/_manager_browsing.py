"""The run manager's face for browsing outside a run: the sessions the tools open, close and
list, the profiles they read, the operator's network and URL policy, the browser's version.
"""

from __future__ import annotations

from typing import Any

from taskplate.browser import (
    BrowserRuntime,
    Network,
    Proxy,
    Session,
    Sessions,
    Snapshot,
    UrlPolicy,
)
from taskplate.contract import TaskplateError, TrustLevel

from ._wiring import RunWiring


class ManagerBrowsing:
    """What a caller of the manager asks of its browser, by the manager's own methods: a caller
    never reaches into `sessions`, `runtime` or `profiles` itself."""

    wiring: RunWiring
    runtime: BrowserRuntime
    sessions: Sessions
    profiles: Any

    async def open_session(
        self, trust: TrustLevel, profile_id: str, record: bool = False, principal: str | None = None
    ) -> Session:
        """A new session under the caller's URL policy, seeded from the snapshot of the
        caller's profile (`profiles_of`); `record`: its network recorded, for a first test case
        when it is saved."""
        return await self.wiring.open_session(trust, profile_id, record=record, principal=principal)

    def session(self, session_id: str) -> Session:
        """An open session of this process (SESSION_NOT_FOUND naming why not)."""
        return self.sessions.get(session_id)

    def has_session(self, session_id: str) -> bool:
        """Whether the session is open in this process."""
        return session_id in self.sessions.sessions

    def open_sessions(self) -> list[Session]:
        """Every session open in this process, oldest first."""
        return list(self.sessions.sessions.values())

    async def close_session(self, session_id: str, keep_recording: bool = False) -> None:
        """The session closed; `keep_recording`: its network recording's folder kept."""
        await self.sessions.close(session_id, keep_recording=keep_recording)

    def no_session(self, session_id: str) -> TaskplateError:
        """SESSION_NOT_FOUND for `session_id`, naming why (closed, another server's, unknown)."""
        return self.sessions.not_here(session_id)

    def profile_snapshot(
        self, profile_id: str, trust: TrustLevel = TrustLevel.LOCAL, principal: str | None = None
    ) -> Snapshot:
        """A profile's saved state (cookies, storage) as a new session would be seeded: the
        caller's own profile, or one shared with it (`profiles_of`)."""
        snapshot: Snapshot = self.profiles_of(trust, principal).read(profile_id)
        return snapshot

    def profiles_of(self, trust: TrustLevel, principal: str | None) -> Any:
        """The profiles a caller of `trust` names and an action outside a run may publish a
        session's state to: the operator's for a local caller, a remote principal's own (and
        those shared with it) for a remote one."""
        return self.wiring.profiles_of(trust, principal)

    def url_policy(self, trust: TrustLevel, *, proxy: Proxy | None = None) -> UrlPolicy:
        """The URL policy of a caller of `trust` (`proxy`: it resolves the names)."""
        return self.wiring.url_policy(trust, proxy=proxy)

    def operator_network(self, profile: str | None = None) -> Network:
        """The network of sessions and calls outside a run: the operator's proxy."""
        return self.wiring.operator_network(profile)

    async def browser_version(self) -> str:
        """The browser's version, the browser started first if it is not yet."""
        await self.runtime.browser()
        return self.runtime.version
