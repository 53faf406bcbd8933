"""Cleanup that always finishes: done even when the caller is cancelled, never longer than a bound,
its errors swallowed. A close that hangs (a browser that stopped answering) must not hang the run,
the server's shutdown or a test's teardown behind it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import anyio

CLOSE_TIMEOUT_S = 15.0  # a tab, context, browser or driver that has not closed by then is left


@contextlib.contextmanager
def cleanup(seconds: float = CLOSE_TIMEOUT_S) -> Iterator[None]:
    shielded = anyio.CancelScope(shield=True)
    with shielded, anyio.move_on_after(seconds), contextlib.suppress(Exception):
        yield
