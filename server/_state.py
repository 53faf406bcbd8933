"""What every tool of one server shares, handed to each tool explicitly: the run manager, the
operator's trust setting, the sessions the tools opened and by whom, the open questions of
runs. Trust is decided here, per connection (SPEC §5).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context

from taskplate.contract import TrustLevel
from taskplate.dsl import Template
from taskplate.interpreter import RunManager

from ._auth import is_loopback
from ._input_required import Inbox
from ._logging import LogLevels, caller_of
from ._sessions import ToolSessions
from ._task_asks import TaskAsks

CHECKS_AT_ONCE = 2  # run_steps checks in worker threads at one time


def _access_token(request: Any) -> AccessToken | None:
    scope = getattr(request, "scope", None) or {}
    user = scope.get("user")
    return user.access_token if isinstance(user, AuthenticatedUser) else None


@dataclass
class ServerState:
    manager: RunManager
    # `dsl serve --trust local` lets loopback callers be local
    http_trust: TrustLevel = TrustLevel.REMOTE
    # `dsl serve --allow-remote-save` lets remote callers save templates (save_template)
    remote_save: bool = False
    # sessionId -> the caller that opened it (see `caller`)
    owners: dict[str, str | None] = field(default_factory=dict)
    started: float = field(default_factory=time.time)
    log_levels: LogLevels = field(default_factory=LogLevels)
    # serves a template saved while the server runs as a resource too (set by build_server)
    published: Callable[[Template], None] | None = None
    # the open questions of runs started over 2026-07-28 (the input-required flow)
    inbox: Inbox = field(default_factory=Inbox)
    # the open questions of runs started as 2025-11-25 tasks
    task_asks: TaskAsks = field(default_factory=TaskAsks)
    # the sessions the browser tools opened: their openers' trust, their typed secrets
    sessions: ToolSessions = field(default_factory=ToolSessions)
    # run_steps checks its steps in worker threads, this many at once
    checks: anyio.CapacityLimiter = field(
        default_factory=lambda: anyio.CapacityLimiter(CHECKS_AT_ONCE)
    )
    # where the status notifications of 2025-11-25 tasks are sent from (set by serve)
    watchers: anyio.abc.TaskGroup | None = None

    def trust(self, ctx: Context[Any]) -> TrustLevel:
        """stdio is local; HTTP is remote unless started with --trust local and called from loopback."""
        request = ctx.request_context.request if ctx is not None else None
        if request is None:
            return TrustLevel.LOCAL
        token = _access_token(request)
        if token is not None and token.claims and token.claims.get("trust"):
            return TrustLevel(token.claims["trust"])  # the operator gave this token its level
        client = getattr(request, "client", None)
        host = getattr(client, "host", None)
        if self.http_trust is TrustLevel.LOCAL and host is not None and is_loopback(host):
            return TrustLevel.LOCAL
        return TrustLevel.REMOTE

    @staticmethod
    def caller(ctx: Context[Any]) -> str | None:
        return caller_of(ctx.request_context.request)
