"""What every tool of one server shares, handed to each tool explicitly: the run manager, the
operator's trust setting, the sessions the tools opened and by whom, the open questions of
runs. Trust is decided here, per connection (SPEC §5).
"""

from __future__ import annotations

import contextlib
import hashlib
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
from taskplate.interpreter import OPERATOR, Principal, RunManager

from ._input_required import Inbox
from ._logging import LogLevels, caller_of
from ._paging import CHARS_PER_TOKEN, DEFAULT_TOKENS
from ._sessions import ToolSessions
from ._task_asks import TaskAsks
from .transports import is_loopback

CHECKS_AT_ONCE = 2  # run_steps checks in worker threads at one time
_PRINCIPAL = "taskplate.principal"  # where a request keeps its caller once decided


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
    # the characters an answer's text may take unless a call says (`dsl serve --answer-tokens`)
    answer_chars: int = DEFAULT_TOKENS * CHARS_PER_TOKEN
    started: float = field(default_factory=time.time)
    log_levels: LogLevels = field(default_factory=LogLevels)
    # serves a template saved while the server runs as a resource too (set by build_server)
    published: Callable[[Template], None] | None = None
    # offers the templates as tools again after the library changed (templateTools; set by
    # build_server); True when the tool list changed
    reoffered: Callable[[], bool] | None = None
    template_tools: dict[str, Any] = field(default_factory=dict)  # name -> the SDK's Tool
    tool_room: int = 0  # the characters of tools/list left to the templates' tools
    tool_tokens: int = 0  # the budget of tools/list, in tokens (`dsl serve --tool-tokens`)
    left_out: dict[str, str] = field(default_factory=dict)  # templates not offered, and why
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
        return self.trust_of(ctx.request_context.request if ctx is not None else None)

    def trust_of(self, request: Any) -> TrustLevel:
        """`trust` of a request (None: stdio)."""
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

    def principal(self, ctx: Context[Any]) -> Principal:
        """Whose runs, artifacts, tasks, questions and sessions this caller reaches."""
        return self.principal_of(ctx.request_context.request if ctx is not None else None)

    def principal_of(self, request: Any) -> Principal:
        """The caller of a request (None: stdio, the local user), decided once per request:
        a bearer token's principal (an operator when the token is local), else the local user
        for a local caller, else the HTTP session (the transport tells it apart), else nobody
        in particular (stateless HTTP without a token)."""
        if request is None:
            return OPERATOR
        scope = getattr(request, "scope", None)
        known = scope.get(_PRINCIPAL) if isinstance(scope, dict) else None
        if isinstance(known, Principal):
            return known
        operator = self.trust_of(request) is TrustLevel.LOCAL
        token = _access_token(request)
        if token is not None:
            principal = Principal(
                (token.claims or {}).get("principal") or token.client_id, operator
            )
        elif operator:
            principal = OPERATOR
        else:
            caller = caller_of(request)
            digest = hashlib.sha256(caller.encode()).hexdigest()[:24] if caller else None
            principal = Principal(f"session:{digest}" if digest else None)
        if isinstance(scope, dict):
            scope[_PRINCIPAL] = principal
        return principal


async def refresh_templates(state: ServerState, ctx: Any) -> None:
    """The library read again if its files changed; with templates as tools, the tool list
    follows it, and the caller's session (2025-11-25) is told (notifications/tools/list_changed;
    2026-07-28 keeps no session to tell: its clients list again)."""
    if not await state.manager.refresh_templates() or state.reoffered is None:
        return
    if state.reoffered() and ctx is not None:
        with contextlib.suppress(Exception):  # a session that cannot be told lists again
            await ctx.session.send_tool_list_changed()
