"""The browser sessions opened through the tools: who opened each (its principal and trust),
the values typed as secrets in each, and each succeeded call, kept.

Sessions themselves are the run manager's; this keeps only what the tools must know of them.
"""

from __future__ import annotations

import atexit
import shutil
from dataclasses import dataclass, field
from typing import Any

from taskplate.browser import HarRecording, Session
from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.interpreter import Principal, RunManager, iso, marked, typed_secret


@dataclass
class ToolSessions:
    # sessionId -> the principal that opened it (`Principal.name`): only it, or an operator,
    # reaches the session; to anyone else its id is unknown
    owners: dict[str, str | None] = field(default_factory=dict)
    # sessionId -> the trust of the caller that opened it
    trust: dict[str, TrustLevel] = field(default_factory=dict)
    # sessionId -> values typed as secrets in it (recorded as marks, never in clear)
    secrets: dict[str, list[str]] = field(default_factory=dict)
    # sessionId -> the network recording of a recorded session closed before it was saved
    # (its folder goes when save_template takes it, else when the server ends)
    recordings: dict[str, HarRecording] = field(default_factory=dict)

    async def close(self, manager: RunManager, session_id: str) -> None:
        """The session closed; a recorded one's recording kept for save_template."""
        session = manager.session(session_id)
        recording = session.recording
        await manager.close_session(session_id, keep_recording=recording is not None)
        if recording is None:
            self.owners.pop(session_id, None)  # a recording keeps its owner for save_template
        else:
            self.recordings[session_id] = recording
            atexit.register(shutil.rmtree, recording.folder, True)

    async def take_recording(self, manager: RunManager, session_id: str) -> HarRecording | None:
        """A recorded session's recording, whole: the session closed first if it is open (each
        context writes its HAR as it closes). The taker removes its folder. None: the
        session was not recorded."""
        if manager.has_session(session_id):
            await self.close(manager, session_id)
        self.owners.pop(session_id, None)
        return self.recordings.pop(session_id, None)

    async def open(
        self,
        manager: RunManager,
        trust: TrustLevel,
        principal: Principal,
        profile_id: str | None,
        record: bool = False,
    ) -> Session:
        profile = "master" if profile_id is None else profile_id
        session = await manager.open_session(
            trust, profile, record=record, principal=principal.name
        )
        self.trust[session.id] = trust
        self.owners[session.id] = principal.name
        return session

    def owned(self, manager: RunManager, session_id: str, principal: Principal) -> None:
        """Nothing when `principal` may reach the session (its opener's, or an operator);
        else SESSION_NOT_FOUND exactly as for an id this server never made or closed."""
        if not principal.operator and (
            session_id not in self.owners or not principal.sees(self.owners[session_id])
        ):
            raise manager.no_session(session_id)

    def mine(self, manager: RunManager, principal: Principal) -> list[Session]:
        """The open sessions `principal` opened through the tools (an operator: all of them)."""
        if principal.lists_nothing:
            return []
        return [
            session
            for session in manager.open_sessions()
            if session.id in self.owners and principal.sees(self.owners[session.id])
        ]

    def usable(
        self, manager: RunManager, session_id: str, trust: TrustLevel, principal: Principal
    ) -> Session:
        """The session, if this caller may use it: its own (or an operator's reach), and not
        a local caller's for a remote one."""
        self.owned(manager, session_id, principal)
        session = manager.session(session_id)
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
        await manager.keep_call(
            session.id,
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
