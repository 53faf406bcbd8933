"""Each host's pace for one run, both engines alike: a 429 or 503's Retry-After holds the host's
next requests back (capped) and the request is asked again after it (`asking`, a few times at
most), and an adaptive delay follows its latency as Scrapy's AutoThrottle.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Awaitable, Callable
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import TypeVar
from urllib.parse import urlsplit

import anyio

from taskplate.contract import field, lazy_dataclass

MAX_RETRY_AFTER_S = 60.0  # a longer Retry-After is read as this (maxRetryAfterS)
# AutoThrottle: a host's delay moves halfway to latency / TARGET_CONCURRENCY after each answer
# (never down on an error answer), between 0 and MAX_DELAY_S.
TARGET_CONCURRENCY = 4.0
MAX_DELAY_S = 10.0
SLOWED_BY = (429, 503)
_DELAY_SECONDS = re.compile(r"[0-9]+", re.ASCII)
# A 429 or 503 with a Retry-After is asked again after it at most this many times per request
# (docs/networks.md), and only when the wait fits the cap and the time the request has left.
RETRIES = 2
T = TypeVar("T")


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """Seconds a Retry-After header asks for, read as RFC 9110 §10.2.3 writes it: ASCII digits
    (delay-seconds) or an HTTP-date; None for anything else, which is ignored. `str.isdigit`
    is not the test: it takes `²` and `١٢`, which `float` then refuses or misreads."""
    if not value:
        return None
    value = value.strip(" \t")
    if _DELAY_SECONDS.fullmatch(value):
        return float(value)  # a run of digits too long for an int is inf: capped later
    try:
        when = parsedate_to_datetime(value)
        if when.tzinfo is None:  # asctime's form has no zone: an HTTP-date is always GMT
            when = when.replace(tzinfo=UTC)
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


@lazy_dataclass
class _Pace:
    delay: float = 0.0  # AutoThrottle's, from latency
    next_at: float = 0.0  # monotonic: no request to the host starts before
    quiet_until: float = 0.0  # monotonic: the end of the quiet its last Retry-After asked for
    lock: anyio.Lock = field(default_factory=anyio.Lock)


@lazy_dataclass
class HostThrottle:
    """Per-host pace for a run's requests: `wait` before one, `answered` after it."""

    max_retry_after_s: float = MAX_RETRY_AFTER_S
    adaptive: bool = True
    retries: int = RETRIES
    _hosts: dict[str, _Pace] = field(default_factory=dict)

    def _pace(self, url: str) -> _Pace:
        host = (urlsplit(url).hostname or "").lower()
        return self._hosts.setdefault(host, _Pace())

    async def wait(self, url: str) -> str | None:
        """Until the host may be asked again; requests that wait start one after another.
        A warning for the request when it waited out the host's Retry-After."""
        pace = self._pace(url)
        if pace.next_at <= time.monotonic():
            if pace.delay:
                pace.next_at = time.monotonic() + pace.delay
            return None
        async with pace.lock:
            now = time.monotonic()
            wait, quiet = pace.next_at - now, pace.quiet_until > now
            if wait > 0:
                await anyio.sleep(wait)
            pace.next_at = time.monotonic() + pace.delay
        host = urlsplit(url).hostname or url
        if not quiet or wait <= 0:
            return None
        return f"waited {wait:.1f} s: {host} had asked for quiet (Retry-After)"

    def answered(
        self, url: str, status: int, retry_after: str | None, latency_s: float
    ) -> str | None:
        """Learn from an answer; a warning for the item when the host asked to be left alone."""
        pace = self._pace(url)
        if self.adaptive:
            target = min(latency_s / TARGET_CONCURRENCY, MAX_DELAY_S)
            delay = (pace.delay + target) / 2
            pace.delay = max(delay, pace.delay) if status >= 400 else delay
        asked = retry_after_s(retry_after) if status in SLOWED_BY else None
        if asked is None:
            return None
        held = min(asked, self.max_retry_after_s)
        pace.next_at = max(pace.next_at, time.monotonic() + held)
        pace.quiet_until = max(pace.quiet_until, time.monotonic() + held)
        host = urlsplit(url).hostname or url
        capped = f" (asked {asked:.0f} s; capped by maxRetryAfterS)" if asked > held else ""
        return f"{host} answered {status} with Retry-After: its next requests wait {held:.1f} s{capped}"

    async def asking(
        self,
        url: str,
        ask: Callable[[], Awaitable[tuple[T, int | None, str | None, list[str]]]],
        limit_s: float = math.inf,
    ) -> tuple[T, list[str]]:
        """`ask()` (which waits for the host and learns from its answer: (answer, status,
        Retry-After, warnings)), and again while the host answers 429 or 503 with a Retry-After
        that fits in the cap and in the time left (`limit_s` from now, and the caller's cancel
        scope), at most `retries` times. The last answer, and the warnings of them all."""
        started, notes = time.monotonic(), []
        for tried in range(self.retries + 1):
            got, status, retry_after, said = await ask()
            notes.extend(said)
            left = min(limit_s - (time.monotonic() - started), _time_left())
            again, note = self._again(url, status, retry_after, tried, left)
            if note:
                notes.append(note)
            if not again:
                break
        return got, notes

    def _again(
        self, url: str, status: int | None, retry_after: str | None, tried: int, left_s: float
    ) -> tuple[bool, str | None]:
        """Whether an answer is asked for again, and a warning saying so or why not."""
        asked = retry_after_s(retry_after) if status in SLOWED_BY else None
        if asked is None:
            return False, None
        host = urlsplit(url).hostname or url
        if tried >= self.retries:
            return False, (
                f"{host} answered {status} with Retry-After again: not asked again after"
                f" {tried} retries"
            )
        if asked > self.max_retry_after_s:
            return False, (
                f"not asked again: {host}'s Retry-After ({asked:.0f} s) is longer than"
                f" maxRetryAfterS ({self.max_retry_after_s:.0f} s)"
            )
        if asked >= left_s:
            return False, (
                f"not asked again: {host}'s Retry-After ({asked:.1f} s) is longer than the"
                f" {max(left_s, 0):.1f} s left of the step's time"
            )
        return (
            True,
            f"asked {host} again after its Retry-After (retry {tried + 1} of at most {self.retries})",
        )


def _time_left() -> float:
    """Seconds until the caller's cancel scope ends (a step's timeout, a run's), inf if none."""
    return anyio.current_effective_deadline() - anyio.current_time()
