"""The cursor of a tasks/list page: an opaque token naming the last task of the page before it,
which any server on the store reads back (no key of one process in it).

Only a token of this exact form is a cursor: `read_cursor` answers None for anything else
(a number, whitespace, other digits, padding, another encoding of the same id) before any
store work, and the listing answers -32602 for it.
"""

from __future__ import annotations

import base64
import binascii
import re

_PREFIX = "tc1."
_TOKEN = re.compile(r"tc1\.[A-Za-z0-9_-]{1,64}", re.ASCII)
_RUN_ID = re.compile(r"run_[0-9A-HJKMNP-TV-Z]{26}", re.ASCII)  # new_run_id's form


def cursor_after(run_id: str) -> str:
    """The cursor of the page that follows the task `run_id`."""
    return _PREFIX + base64.urlsafe_b64encode(run_id.encode()).decode().rstrip("=")


def read_cursor(cursor: str) -> str | None:
    """The run id a cursor of `cursor_after` names; None when it is no such cursor."""
    if not _TOKEN.fullmatch(cursor):
        return None
    body = cursor.removeprefix(_PREFIX)
    try:
        run_id = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if not _RUN_ID.fullmatch(run_id) or cursor_after(run_id) != cursor:
        return None
    return run_id
