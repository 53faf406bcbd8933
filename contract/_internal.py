"""What a caller sees of an internal error (a bug): a code, our own words and a reference to the
server's log line, which holds the Python exception and its traceback. No caller sees their text.
"""

from __future__ import annotations

import logging
import secrets
import traceback

from ._vocabulary import ErrorCode, TaskplateError


def exception_summary(exc: BaseException) -> str:
    """What an internal error was, for the log: each exception a group holds, with where it was
    raised (the whole traceback goes to the log beside it)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(exception_summary(inner) for inner in exc.exceptions)
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" (at {where[0].filename.rsplit('/', 1)[-1]}:{where[0].lineno})" if where else ""
    return f"{type(exc).__name__}: {exc}{at}"


def internal_error(exc: BaseException, doing: str, log: logging.Logger) -> TaskplateError:
    """EXECUTION_ERROR for an exception nothing expected while `doing` something: logged with
    its traceback under a reference the caller's error names, so an operator finds it."""
    reference = secrets.token_hex(4)
    log.error(
        "internal error %s while %s: %s", reference, doing, exception_summary(exc), exc_info=exc
    )
    return TaskplateError(
        ErrorCode.EXECUTION_ERROR,
        f"{doing} failed with an internal error (reference {reference})",
        f"Report this as a bug, naming reference {reference}: the server's log holds its cause.",
        {"internalError": reference},
    )
