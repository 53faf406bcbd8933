"""The cursor of a tasks/list page: an opaque token naming the last task of the page before it,
which any server on the store reads back (no key of one process in it).

Only a token of this exact form is a cursor: `read_cursor` answers None for anything else
(a number, whitespace, other digits, padding, another encoding of the same id) before any
store work, and the listing answers -32602 for it.
"""

from __future__ import annotations

import re

from ._opaque import opened, sealed

_PREFIX = "tc1."
_RUN_ID = re.compile(r"run_[0-9A-HJKMNP-TV-Z]{26}", re.ASCII)  # new_run_id's form


def cursor_after(run_id: str) -> str:
    """The cursor of the page that follows the task `run_id`."""
    return sealed(_PREFIX, run_id)


def read_cursor(cursor: str) -> str | None:
    """The run id a cursor of `cursor_after` names; None when it is no such cursor."""
    run_id = opened(_PREFIX, cursor, 64)
    return run_id if run_id is not None and _RUN_ID.fullmatch(run_id) else None
