"""Opaque tokens a client hands back (a tasks/list cursor, an answer's nextCursor): a prefix
and its text in base64url without padding. Only the one spelling `sealed` makes is read back,
so a token padded, re-encoded or cut is nothing, before any store work."""

from __future__ import annotations

import base64
import binascii
import re

_BODY = re.compile(r"[A-Za-z0-9_-]+", re.ASCII)


def sealed(prefix: str, text: str) -> str:
    return prefix + base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def opened(prefix: str, token: str, longest: int) -> str | None:
    """The text of a `sealed(prefix, …)` token of at most `longest` characters after its
    prefix; None for anything else."""
    body = token.removeprefix(prefix)
    if body == token or len(body) > longest or not _BODY.fullmatch(body):
        return None
    try:
        text = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if sealed(prefix, text) == token else None
