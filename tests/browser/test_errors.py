"""A failure's message is ours: Playwright's first line for a page's or the browser's error, but
never a Python exception's text (a KeyError's key, lxml's complaint), which goes to the log
under the reference the caller's error names."""

from __future__ import annotations

import logging

import pytest

from taskplate.browser import translate
from taskplate.contract import ErrorCode, internal_error


@pytest.mark.parametrize(
    "exc",
    [
        KeyError("__proto__"),
        ValueError("All strings must be XML compatible: Unicode or ASCII, no NULL bytes"),
        RecursionError("maximum recursion depth exceeded"),
    ],
)
def test_a_python_exception_is_an_internal_error_named_by_reference(
    exc: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        error = translate(exc, doing="extract", timeout_code=ErrorCode.EXECUTION_ERROR)
    reference = error.details["internalError"]
    assert error.code is ErrorCode.EXECUTION_ERROR and reference in error.recover_hint
    said = f"{error.message} {error.recover_hint}"
    assert str(exc) not in said and type(exc).__name__ not in said
    assert error.message == f"extract failed with an internal error (reference {reference})"
    logged = [r for r in caplog.records if reference in r.getMessage()]
    assert logged and str(exc) in logged[0].getMessage() and logged[0].exc_info


def test_each_internal_error_has_its_own_reference() -> None:
    log = logging.getLogger("test")
    first = internal_error(KeyError("a"), "run run_1", log)
    second = internal_error(KeyError("a"), "run run_1", log)
    assert first.details["internalError"] != second.details["internalError"]
