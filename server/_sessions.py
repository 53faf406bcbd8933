"""The browser sessions opened through the tools: who opened each (local or remote, which
client), the values typed as secrets in each, and the record of each succeeded call.

Sessions themselves are the run manager's; this keeps only what the tools must know of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from taskplate.browser import Session
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.interpreter import RunManager, iso, marked, typed_secret


@dataclass
class ToolSessions:
    # sessionId -> the trust of the caller that opened it
    trust: dict[str, TrustLevel] = field(default_factory=dict)
    # sessionId -> values typed as secrets in it (recorded as marks, never in clear)
    secrets: dict[str, list[str]] = field(default_factory=dict)

    async def open(self, manager: RunManager, trust: TrustLevel, profile_id: str | None) -> Session:
        session = await manager.open_session(trust, "master" if profile_id is None else profile_id)
        self.trust[session.id] = trust
        return session

    def usable(self, manager: RunManager, session_id: str, trust: TrustLevel) -> Session:
        """The session, if a caller of this trust may use it."""
        session = manager.sessions.get(session_id)
        if (
            trust is TrustLevel.REMOTE
            and self.trust.get(session_id, TrustLevel.LOCAL) is TrustLevel.LOCAL
        ):
            raise TaskplateError(
                ErrorCode.TRUST_LEVEL_NOT_ALLOWED,
                f"session {session_id} was opened by a local caller; remote callers may not use it",
                "Open your own session with create_session.",
            )
        return session

    async def keep_call(
        self,
        manager: RunManager,
        session: Session,
        name: str,
        args: dict[str, Any],
        tab_id: str | None,
        result: dict[str, Any],
    ) -> None:
        """A succeeded call, recorded in the run store under the session's id for
        save_template; a value typed as a secret is kept as a mark, never in clear."""
        secrets = self.secrets.setdefault(session.id, [])
        secret = typed_secret(name, args, result)
        if secret is not None and secret not in secrets:
            secrets.append(secret)
        await manager.store.record_call(
            session.id,
            None,
            step_id=None,
            item_index=None,
            action=name,
            tab=None if tab_id in (None, session.main_tab) else tab_id,
            args=marked(args, secrets),
            opened_tab=result.get("tabId") if name == "create_tab" else None,
        )


def described(session: Session) -> dict[str, Any]:
    """A session as create_session and list_sessions answer it."""
    return {
        "sessionId": session.id,
        "profileId": session.profile_id,
        "tabs": len(session.tabs),
        "createdAt": iso(session.created_at) or "",
    }
