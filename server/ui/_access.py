"""Who may see the runs page and post its forms: bearer tokens (a header, or once in
`?token=` which leaves a cookie), local callers only unless the operator allows others, Host
names allowed (against DNS rebinding), and forms signed per run and posted from this origin.

Decides access only; renders and reads nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from taskplate.contract import TrustLevel

from ..transports import LOOPBACK_HOSTS, Token, is_loopback
from ._html import HEADERS, plain

COOKIE = "taskplate_ui"
TOKEN_NEEDED = {"WWW-Authenticate": 'Bearer realm="taskplate"'}


@dataclass
class UiAccess:
    """Who may see the page: bearer tokens when the operator set any (a header, or once in
    `?token=` which leaves a cookie); local callers only unless `allow_remote`; Host names
    allowed (against DNS rebinding)."""

    tokens: list[Token] = field(default_factory=list)
    allow_remote: bool = False
    hosts: list[str] = field(default_factory=lambda: list(LOOPBACK_HOSTS))
    _cookies: dict[str, Token] = field(default_factory=dict)

    def host_ok(self, host_header: str) -> bool:
        for pattern in self.hosts:
            if pattern.endswith(":*"):
                name = pattern[:-2]
                if host_header == name or re.fullmatch(re.escape(name) + r":\d+", host_header):
                    return True
            elif host_header == pattern:
                return True
        return False

    def token_of(self, request: Request) -> Token | None:
        presented = None
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            presented = header[7:].strip()
        if presented is not None:
            return self.match(presented)
        return self._cookies.get(request.cookies.get(COOKIE, ""))

    def match(self, presented: str) -> Token | None:
        digest = hashlib.sha256(presented.encode()).digest()
        found = None
        for known in self.tokens:  # no early exit: the time tells nothing
            if hmac.compare_digest(digest, known.digest):
                found = known
        return found

    def remember(self, token: Token) -> str:
        cookie = secrets.token_urlsafe(32)
        self._cookies[cookie] = token
        return cookie

    def refusal(self, request: Request) -> Response | None:
        """Why this request may not see the page, or None."""
        token = None
        if self.tokens:
            token = self.token_of(request)
            if token is None:
                return plain(
                    "A token is needed: send Authorization: Bearer TOKEN, or open this page "
                    "once as ?token=TOKEN.",
                    401,
                    TOKEN_NEEDED,
                )
        client = request.client.host if request.client else ""
        local = (
            token.trust is TrustLevel.LOCAL
            if token is not None and token.trust is not None
            else is_loopback(client)
        )
        if not local and not self.allow_remote:
            return plain(
                "The runs page serves local callers only (the operator can allow others).", 403
            )
        return None

    def with_token(self, request: Request) -> Response | None:
        """`?token=…` once: a cookie for the rest of the visit, and the URL without the token."""
        presented = request.query_params.get("token")
        if presented is None or not self.tokens:
            return None
        token = self.match(presented)
        if token is None:
            return plain("Wrong token.", 401, TOKEN_NEEDED)
        rest = {k: v for k, v in request.query_params.items() if k != "token"}
        target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
        response = RedirectResponse(target, status_code=303, headers=HEADERS)
        response.set_cookie(
            COOKIE,
            self.remember(token),
            httponly=True,
            samesite="strict",
            path=request.scope.get("root_path", "") or "/",
        )
        return response


class FormTokens:
    """The token a run's Cancel and Resume forms carry, bound to the run; the key is new at
    every start, so a form of an earlier server is refused."""

    def __init__(self) -> None:
        self.key = secrets.token_bytes(32)

    def of(self, run_id: str) -> str:
        return hmac.new(self.key, f"cancel:{run_id}".encode(), hashlib.sha256).hexdigest()

    def valid(self, run_id: str, presented: str) -> bool:
        return hmac.compare_digest(presented, self.of(run_id))


def same_origin(request: Request) -> bool:
    """A browser says where a request comes from (Sec-Fetch-Site, Origin): only this page's
    own origin may post; a client that says nothing must still carry the form's token."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return False
    origin = request.headers.get("origin")
    if origin is None or origin == "null":  # "null": a browser hiding it; its site says
        return origin is None or site == "same-origin"
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"
