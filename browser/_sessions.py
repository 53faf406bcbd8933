"""Every browser session of this process, by id, with the process-wide tab cap; an id that is
not here is told apart (closed here, held by another server, never made).
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError

from ._contexts import SessionContexts
from ._har import HarRecording
from ._runtime import BrowserRuntime
from ._session import Session
from .traffic import Network, UrlPolicy

MAX_TABS_PER_SESSION = 20
MAX_TABS_PER_PROCESS = 50


class Sessions:
    """Every session of this process, with the process-wide tab cap."""

    def __init__(self, runtime: BrowserRuntime) -> None:
        self.runtime = runtime
        self.sessions: dict[str, Session] = {}
        self.open_tabs = 0
        # in every id this process makes (ses_<mark>_<key>): an id of another process shows
        self.mark = uuid.uuid4().hex[:8]

    async def create(
        self,
        *,
        policy: UrlPolicy | None = None,
        seed: Any = None,
        session_id: str | None = None,
        record: bool = False,
        network: Network | None = None,
    ) -> Session:
        """`record`: every context of the session recorded into a HAR file (a folder of its
        own, removed when the session closes unless its taker keeps it)."""
        sid = session_id or f"ses_{self.mark}_{uuid.uuid4().hex}"  # 128 random bits: the key
        if sid in self.sessions:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER, f"session {sid} exists already", "Choose another id."
            )
        recording = (
            HarRecording(Path(tempfile.mkdtemp(prefix="taskplate-session-"))) if record else None
        )
        session = Session(self, sid, policy or UrlPolicy(), seed, recording, network)
        try:
            await session.open()
        except BaseException:
            await session.close()
            raise
        self.sessions[sid] = session
        return session

    def get(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise self.not_here(session_id)
        return session

    def not_here(self, session_id: str) -> TaskplateError:
        """SESSION_NOT_FOUND naming why: the session is held by another process (its id says
        which made it: another server behind a load balancer, or this one before a restart), or it
        was closed here, or no such id was ever made."""
        parts = session_id.split("_", 2)
        mark = parts[1] if len(parts) == 3 and parts[0] == "ses" and parts[2] else ""
        if len(mark) != len(self.mark):
            return TaskplateError(
                ErrorCode.SESSION_NOT_FOUND,
                f"no session {session_id}",
                "List sessions with list_sessions or create one with create_session.",
                {"sessionId": session_id, "cause": "unknown"},
            )
        if mark == self.mark:
            return TaskplateError(
                ErrorCode.SESSION_NOT_FOUND,
                f"no session {session_id} on this server: it was closed",
                "Create another one with create_session.",
                {"sessionId": session_id, "cause": "closed"},
            )
        return TaskplateError(
            ErrorCode.SESSION_NOT_FOUND,
            f"no session {session_id} on this server: it is held by another server (a browser "
            "session lives in the memory of the server that opened it: another server behind a "
            "load balancer, or this one before it restarted)",
            "Send every call naming this session to the server that opened it (a load balancer "
            "must be sticky for browser sessions), or create a session here with create_session. "
            "Runs (run_task_template, get_task_run, cancel_task_run) are answered by any server.",
            {"sessionId": session_id, "cause": "another_server"},
        )

    async def close(self, session_id: str, keep_recording: bool = False) -> None:
        session = self.get(session_id)
        del self.sessions[session_id]
        await session.close(keep_recording)

    async def close_all(self) -> None:
        for sid in list(self.sessions):
            await self.close(sid)

    def has_room(self, session: SessionContexts) -> bool:
        return len(session.tabs) < MAX_TABS_PER_SESSION and self.open_tabs < MAX_TABS_PER_PROCESS

    def reserve_tab(self, session: SessionContexts) -> None:
        if len(session.tabs) >= MAX_TABS_PER_SESSION:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"session {session.id} has {MAX_TABS_PER_SESSION} tabs open, the most a session may have",
                "Close a tab (close_tab) before opening another.",
            )
        if self.open_tabs >= MAX_TABS_PER_PROCESS:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"{MAX_TABS_PER_PROCESS} tabs are open in this process, the most it may have",
                "Close tabs or sessions, or wait for running work to finish.",
            )
        self.open_tabs += 1

    def release_tab(self) -> None:
        self.open_tabs = max(0, self.open_tabs - 1)

    def forget_tabs(self, session: SessionContexts) -> None:
        self.open_tabs = max(0, self.open_tabs - len(session.tabs))
