"""Who may call over HTTP: bearer tokens (from --token-file or TASKPLATE_TOKENS), each with an
optional trust level and principal, checked through the SDK's own auth hooks; and the Host/Origin
names allowed.

Tokens are compared in constant time and never logged; a caller is named by its line's
`principal=NAME`, else by a digest of the token's digest (`own_principal`), never by the secret.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

from taskplate.contract import ErrorCode, TaskplateError, TrustLevel
from taskplate.interpreter import LOCAL, Share

TOKENS_ENV = "TASKPLATE_TOKENS"
LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


PRINCIPAL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_LINE = "expected TOKEN [local|remote] [principal=NAME] [max-running=N] [max-queued=N]"
# a principal's share of the runs (interpreter Share): the word, and the Token field it sets
_SHARES = {"max-running": "running", "max-queued": "queued"}
_MOST_SHARE = 1_000_000


@dataclass(frozen=True)
class Token:
    digest: bytes  # sha256 of the secret: the secret itself is not kept
    trust: TrustLevel | None  # None: the server's rule for HTTP callers
    principal: str | None = None  # who its callers are; None: this token's own (own_principal)
    running: int | None = None  # max-running=N: its principal's runs holding slots at once
    queued: int | None = None  # max-queued=N: its principal's runs waiting queued

    @property
    def name(self) -> str:
        """The principal its callers are."""
        return self.principal or own_principal(self)


def _entry_error(source: str, number: int, message: str, hint: str) -> TaskplateError:
    return TaskplateError(ErrorCode.INVALID_PARAMETER, f"{source}, entry {number}: {message}", hint)


def _token_line(line: str, source: str, number: int) -> Token:
    """`TOKEN [local|remote] [principal=NAME] [max-running=N] [max-queued=N]` (the words after
    the token in any order)."""
    secret, *rest = line.split()
    trust: TrustLevel | None = None
    principal: str | None = None
    shares: dict[str, int] = {}
    for word in rest:
        key, _, value = word.partition("=")
        if word in ("local", "remote") and trust is None:
            trust = TrustLevel(word)
        elif word.startswith("principal=") and principal is None:
            principal = word.removeprefix("principal=")
            if principal == LOCAL:
                raise _entry_error(
                    source,
                    number,
                    f"principal name {LOCAL!r} is the local user's own: a token naming it would "
                    "reach the local user's runs, sessions and profiles",
                    "Give the token a principal name of its own, e.g. principal=ops.",
                )
            if not PRINCIPAL_NAME.fullmatch(principal):
                raise _entry_error(
                    source,
                    number,
                    f"principal name {principal!r} must be 1 to 64 letters, digits or . _ @ -, "
                    "starting with a letter or digit",
                    "Name the principal e.g. principal=team-a; tokens with one name are one caller.",
                )
        elif key in _SHARES and _SHARES[key] not in shares:
            shares[_SHARES[key]] = _share_value(key, value, source, number)
        else:
            raise _entry_error(
                source,
                number,
                _LINE,
                "Write one token per line, optionally followed by its trust level, "
                "principal=NAME (tokens naming one principal are one caller) and its share of "
                "the runs, max-running=N and max-queued=N.",
            )
    if len(secret) < 16:
        raise _entry_error(
            source,
            number,
            "a token must be at least 16 characters",
            "Use a long random token, e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`.",
        )
    return Token(hashlib.sha256(secret.encode()).digest(), trust, principal, **shares)


def _share_value(key: str, value: str, source: str, number: int) -> int:
    if value.isascii() and value.isdigit() and 1 <= int(value) <= _MOST_SHARE:
        return int(value)
    raise _entry_error(
        source,
        number,
        f"{key} must be a whole number from 1 to {_MOST_SHARE:,}, not {value[:20]!r}",
        f"Write e.g. {key}=2; a value above the server's own limit counts as that limit.",
    )


def parse_tokens(text: str, source: str) -> list[Token]:
    """One token per line (or comma-separated), optionally followed by `local` or `remote` and
    `principal=NAME`; blank lines and `#` comments are skipped. A principal's tokens share
    one trust level (its runs are one caller's, whichever token started them)."""
    tokens: list[Token] = []
    numbers: list[int] = []
    for number, raw in enumerate(text.replace(",", "\n").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            tokens.append(_token_line(line, source, number))
            numbers.append(number)
    clash = _mixed_trust(tokens)
    if clash is not None:
        raise _entry_error(
            source,
            numbers[clash],
            f"principal {tokens[clash].principal} has tokens of different trust levels",
            _ONE_TRUST,
        )
    mixed = _mixed_shares(tokens)
    if mixed is not None:
        index, key = mixed
        raise _entry_error(
            source, numbers[index], f"principal {tokens[index].principal} has two {key}", _ONE_SHARE
        )
    return tokens


_ONE_TRUST = "Give every token of one principal the same level (local or remote)."
_ONE_SHARE = (
    "Give a principal's max-running and max-queued once, or the same on each of its lines "
    "(a line without one takes the principal's)."
)


def _mixed_shares(tokens: list[Token]) -> tuple[int, str] | None:
    """The index of the first token giving its principal another max-running or max-queued
    than a token before it did, and the word; None: none."""
    given: dict[tuple[str, str], int] = {}
    for index, token in enumerate(tokens):
        for key, field_name in _SHARES.items():
            value = getattr(token, field_name)
            if value is not None and given.setdefault((token.name, key), value) != value:
                return index, key
    return None


def shares(tokens: list[Token]) -> dict[str, Share]:
    """Each principal's share of the runs, as its tokens' lines give it (the run manager's
    `Capacity.shares`)."""
    found: dict[str, dict[str, int]] = {}
    for token in tokens:
        mine = found.setdefault(token.name, {})
        for field_name in _SHARES.values():
            value = getattr(token, field_name)
            if value is not None:
                mine.setdefault(field_name, value)
    return {name: Share(**given) for name, given in found.items() if given}


def _mixed_trust(tokens: list[Token]) -> int | None:
    """The index of the first token whose principal's tokens before it have another trust
    level (a principal's runs are one caller's, whichever token started them); None: none."""
    trusts: dict[str, TrustLevel | None] = {}
    for index, token in enumerate(tokens):
        named = token.principal
        if named is not None and trusts.setdefault(named, token.trust) != token.trust:
            return index
    return None


def load_tokens(token_file: Path | None) -> list[Token]:
    tokens = parse_tokens(os.environ.get(TOKENS_ENV, ""), TOKENS_ENV)
    if token_file is not None:
        try:
            text = token_file.read_text(encoding="utf-8")
        except OSError as error:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"cannot read the token file {token_file}: {error.strerror}",
                "Pass a readable file with one token per line.",
            ) from None
        tokens += parse_tokens(text, str(token_file))
    clash = _mixed_trust(tokens)  # each source was checked as it was read; here, both together
    if clash is not None:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"principal {tokens[clash].principal} has tokens of different trust levels in "
            f"{TOKENS_ENV} and {token_file}",
            _ONE_TRUST,
        )
    mixed = _mixed_shares(tokens)
    if mixed is not None:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"principal {tokens[mixed[0]].principal} has two {mixed[1]} in {TOKENS_ENV} and "
            f"{token_file}",
            _ONE_SHARE,
        )
    return tokens


def own_principal(token: Token) -> str:
    """The principal of a token line without `principal=`: that token alone, the same on every
    server and after a restart (a digest of its digest, never the secret; the `:` keeps it
    apart from any name a line can give)."""
    return "token:" + hashlib.sha256(b"taskplate principal\0" + token.digest).hexdigest()[:20]


class StaticTokens:
    """The SDK's TokenVerifier over a fixed list of tokens."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        presented = hashlib.sha256(token.encode()).digest()
        found = None
        for index, known in enumerate(self.tokens):  # no early exit: the time tells nothing
            if hmac.compare_digest(presented, known.digest):
                found = (index, known)
        if found is None:
            return None
        index, known = found
        return AccessToken(
            token=f"token#{index + 1}",  # the SDK keeps this in the request scope: not the secret
            client_id=f"token#{index + 1}",
            scopes=[],
            claims={
                "trust": str(known.trust) if known.trust else None,
                "principal": known.principal or own_principal(known),
            },
        )


@dataclass(frozen=True)
class HttpSecurity:
    """What `dsl serve --transport http` checks before a request reaches a tool."""

    tokens: list[Token] = field(default_factory=list)
    public_hosts: tuple[str, ...] = ()
    allow_origins: tuple[str, ...] = ()

    def auth(self, url: str) -> tuple[StaticTokens, AuthSettings] | None:
        if not self.tokens:
            return None
        return StaticTokens(self.tokens), AuthSettings(
            issuer_url=url,
            resource_server_url=None,
        )

    def transport(self, host: str) -> TransportSecuritySettings:
        """Host and Origin checks against DNS rebinding, for every bind address (the SDK turns them
        on for loopback only): loopback names, the bound address, and the --public-host names."""
        hosts = list(LOOPBACK_HOSTS)
        if host not in ("0.0.0.0", "::", ""):
            bound = f"[{host}]" if ":" in host else host
            hosts += [bound, f"{bound}:*"]
        for name in self.public_hosts:
            hosts += [name] if re.search(r":\d+$", name) else [name, f"{name}:*"]
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=hosts,
            allowed_origins=[*LOOPBACK_ORIGINS, *self.allow_origins],
        )
