"""Cleanup that always finishes: done even when the caller is cancelled, never longer than a bound,
its errors logged and swallowed. A close that hangs (a browser that stopped answering) must not
hang the run, the server's shutdown or a test's teardown behind it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import anyio

CLOSE_TIMEOUT_S = 15.0  # a tab, context, browser or driver that has not closed by then is left

log = logging.getLogger("taskplate.browser")


@contextlib.contextmanager
def cleanup(seconds: float = CLOSE_TIMEOUT_S, what: str = "a cleanup") -> Iterator[None]:
    shielded = anyio.CancelScope(shield=True)
    with shielded, anyio.move_on_after(seconds) as bound:
        try:
            yield
        except Exception as exc:
            log.info("%s failed: %s", what, str(exc).splitlines()[0] if str(exc) else repr(exc))
    if bound.cancelled_caught:
        log.warning("%s did not finish within %g s; left behind", what, seconds)
