"""Translates Playwright's exceptions into the contract's error codes with useful hints.

The only place that reads Playwright's error texts; everything else sees TaskplateError.
"""

from __future__ import annotations

import logging

from taskplate.contract import ErrorCode, TaskplateError, internal_error

log = logging.getLogger("taskplate.browser")

_CRASH_MARKERS = (
    "target crashed",
    "page crashed",
    "has been closed",
    "browser closed",
    "connection closed",
    "target closed",
    "browser has disconnected",
    "session closed",
)


def is_crash(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(marker in text for marker in _CRASH_MARKERS)


def crashed(detail: str = "") -> TaskplateError:
    return TaskplateError(
        ErrorCode.PAGE_CRASHED,
        "the page or the browser crashed" + (f": {detail}" if detail else ""),
        "Retry the call: a new browser is started automatically.",
    )


def too_large(url: str, max_bytes: int) -> TaskplateError:
    """An answer larger than its bound (maxBodyBytes), as it came or as it decoded: the same
    words for both engines."""
    return TaskplateError(
        ErrorCode.NAVIGATION_FAILED,
        f"{url} is larger than the size limit ({max_bytes} bytes)",
        "Raise maxBodyBytes, or skip this page.",
        {"url": url, "maxBodyBytes": max_bytes},
    )


def navigation_failed(url: str, reason: str) -> TaskplateError:
    """A page that could not be reached: `reason` is Chromium's net error (ERR_NAME_NOT_RESOLVED).
    A redirect Chromium will not follow (to data:, file: and other schemes) is URL_NOT_ALLOWED."""
    if reason == UNSAFE_REDIRECT:
        return unsafe_redirect(url)
    return TaskplateError(
        ErrorCode.NAVIGATION_FAILED,
        f"{url} could not be opened: {reason}",
        "Check that the URL is right and the site is reachable; the tab shows an error page.",
        {"url": url, "netError": reason},
    )


UNSAFE_REDIRECT = "ERR_UNSAFE_REDIRECT"  # Chromium's: a redirect to a scheme it does not follow


def unsafe_redirect(url: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.URL_NOT_ALLOWED,
        f"{url} redirects to a URL that is not http(s) ({UNSAFE_REDIRECT})",
        "Leave this URL out: only http and https pages are read.",
        {"url": url, "netError": UNSAFE_REDIRECT},
    )


# How Playwright and Chromium say a selector cannot be parsed (CSS, XPath, Playwright's own).
_BAD_SELECTOR = (
    "while parsing css selector",
    "while parsing selector",
    "is not a valid selector",
    "is not a valid XPath expression",
    "InvalidSelectorError",
)


def net_error(exc: BaseException) -> str | None:
    """Chromium's net error a failure names on its first line (ERR_NAME_NOT_RESOLVED), or None."""
    text = str(exc).strip()
    first_line = text.splitlines()[0] if text else ""
    return first_line.split("net::", 1)[1].split()[0] if "net::ERR_" in first_line else None


def translate(exc: BaseException, *, doing: str, timeout_code: ErrorCode) -> TaskplateError:
    """The contract error for a Playwright failure while `doing` something."""
    if isinstance(exc, TaskplateError):
        return exc
    # Imported here: checking templates loads the actions but needs no Playwright.
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if is_crash(exc):
        return crashed(first_line)
    if isinstance(exc, PlaywrightTimeout):
        if timeout_code is ErrorCode.ELEMENT_NOT_FOUND:
            return TaskplateError(
                timeout_code,
                f"{doing}: no matching element appeared in time",
                "Check the selector (try snapshot to list elements) or raise timeoutMs.",
            )
        return TaskplateError(
            timeout_code, f"{doing} timed out", "Raise timeoutMs or use waitUntil: commit."
        )
    if isinstance(exc, PlaywrightError) and any(m in first_line for m in _BAD_SELECTOR):
        return TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{doing}: the selector is not valid ({first_line.split(': ', 1)[-1]})",
            "Fix the selector: CSS (escape special characters) or xpath=…; snapshot lists "
            "the page's elements.",
        )
    reason = net_error(exc) if isinstance(exc, PlaywrightError) else None
    if reason is not None:
        if reason == UNSAFE_REDIRECT:
            return unsafe_redirect(
                first_line.rsplit(" at ", 1)[-1] if " at " in first_line else doing
            )
        if "TIMED_OUT" in reason:
            return TaskplateError(
                ErrorCode.NAVIGATION_TIMEOUT,
                f"{doing} failed: {reason}",
                "Check that the URL is reachable.",
            )
        return TaskplateError(
            ErrorCode.NAVIGATION_FAILED,
            f"{doing} failed: {reason}",
            "Check that the URL is right and the site is reachable.",
            {"netError": reason},
        )
    if not isinstance(exc, PlaywrightError):
        # Python's own text (a KeyError's key, lxml's complaint) is no message for a caller:
        # the log keeps it under the reference the error names
        return internal_error(exc, doing, log)
    return TaskplateError(ErrorCode.EXECUTION_ERROR, f"{doing} failed: {first_line}", "")
