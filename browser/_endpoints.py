"""Remote browser endpoints (TASKPLATE_BROWSER_ENDPOINTS): their list, their health and their
load. Rows and rules only; connecting and choosing one is `BrowserRuntime`'s work.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.contract import ErrorCode, TaskplateError

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext

# A failed endpoint is tried again after 1, 2, 4, … seconds, at most this long.
BACKOFF_MAX_S = 60.0
CONNECT_TIMEOUT_MS = 15_000
HEALTH_EVERY_S = 10.0  # the periodic check of every endpoint
HEALTH_TIMEOUT_S = 5.0  # a check that takes longer marks the endpoint down
# A connected endpoint with sessions running that is only slow (a busy host) keeps them: it
# gets no new session until a check answers in time, and is closed after this many slow
# checks in a row.
SLOW_CHECKS = 3
REPORT_EVERY_S = 2.0  # a serving process writes its endpoints' load this often
REPORT_FRESH_S = 30.0  # an older load report is of a process that is gone
SCHEMES = ("ws://", "wss://", "http://", "https://")


def parse_endpoints(text: str, *, source: str = "TASKPLATE_BROWSER_ENDPOINTS") -> tuple[str, ...]:
    """Endpoints separated by commas or whitespace; each a ws:// Playwright server or an http://
    CDP endpoint. A malformed one is refused by name: a pool with a typo is no pool."""
    urls = tuple(u for u in re.split(r"[\s,]+", text.strip()) if u)
    for url in urls:
        if not url.lower().startswith(SCHEMES) or len(url) <= len(url.split("//", 1)[0]) + 2:
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"{source}: {url!r} is not a browser endpoint",
                "Give ws://host:port/… (a Playwright server) or http://host:port (a Chromium "
                "CDP endpoint), separated by commas or spaces.",
            )
    if len(set(urls)) != len(urls):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{source} names an endpoint twice",
            "List each browser endpoint once.",
        )
    return urls


def unavailable(endpoints: list[Endpoint]) -> TaskplateError:
    reasons = "; ".join(f"{e.url}: {e.last_error or 'down'}" for e in endpoints)
    return TaskplateError(
        ErrorCode.BROWSER_UNAVAILABLE,
        f"no browser endpoint could be used ({reasons})",
        "Check the browser servers (`dsl doctor` lists them); the call can be retried, "
        "failed endpoints are tried again after a pause.",
        {"endpoints": [e.url for e in endpoints]},
    )


def disconnected(url: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.BROWSER_DISCONNECTED,
        f"the browser at {url} went away while this step used it; its tabs are lost",
        "Retry the step or the item: the session goes on in a browser of another endpoint, "
        "from the state it started with.",
        {"endpoint": url},
    )


@dataclass(eq=False)
class Endpoint:
    """One remote browser: its connection, the contexts (sessions) open in it, its health."""

    url: str
    browser: Browser | None = None
    contexts: set[BrowserContext] = field(default_factory=set)
    opening: int = 0  # contexts being opened in it now
    failures: int = 0  # consecutive failures; the backoff doubles with each
    down_until: float = 0.0  # monotonic; 0: not down
    last_error: str | None = None
    checked_at: float | None = None  # wall clock of the last health check or connect
    lock: anyio.Lock = field(default_factory=anyio.Lock)

    @property
    def up(self) -> bool:
        return self.browser is not None and self.browser.is_connected()

    @property
    def load(self) -> int:
        return len(self.contexts) + self.opening

    @property
    def down(self) -> bool:
        return self.failures > 0

    def may_try(self, now: float | None = None) -> bool:
        """Up, never tried, or down long enough to be tried again."""
        return (now if now is not None else time.monotonic()) >= self.down_until

    def mark_up(self) -> None:
        self.failures, self.down_until, self.last_error = 0, 0.0, None
        self.checked_at = time.time()

    def mark_slow(self, reason: str) -> None:
        """A check or a new context that took too long while sessions run in it: no new
        session goes to it until a check answers in time; its browser and sessions are kept."""
        self.failures += 1
        self.last_error = reason
        self.checked_at = time.time()

    def mark_down(self, reason: str) -> None:
        self.failures += 1
        self.down_until = time.monotonic() + min(BACKOFF_MAX_S, 2.0 ** (self.failures - 1))
        self.last_error = reason
        self.checked_at = time.time()
        self.browser = None
        self.contexts.clear()

    def status(self) -> dict[str, Any]:
        state = (
            "slow"
            if self.up and self.down
            else "up"
            if self.up
            else "down"
            if self.down
            else "not connected"
        )
        out: dict[str, Any] = {"url": self.url, "state": state, "sessions": len(self.contexts)}
        if self.down:
            out["error"] = self.last_error
            out["retryInS"] = round(max(0.0, self.down_until - time.monotonic()), 1)
        if self.up and self.browser is not None:
            out["version"] = self.browser.version
        return out


def write_report(path: Path, status: list[dict[str, Any]]) -> None:
    """This process's view of its endpoints, for `dsl doctor` (written whole, then renamed).

    Reports of processes of this host that are gone are removed on the way: a server ended by
    a signal may not have removed its own."""
    if not path.exists():
        _prune(path.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    report = {"host": socket.gethostname(), "pid": os.getpid(), "at": time.time()}
    tmp.write_text(json.dumps({**report, "endpoints": status}))
    tmp.replace(path)


def read_loads(folder: Path) -> dict[str, int]:
    """Sessions per endpoint, summed over the fresh reports of the serving processes."""
    loads: dict[str, int] = {}
    for path in folder.glob("*.json") if folder.is_dir() else ():
        try:
            report = json.loads(path.read_text())
            if time.time() - float(report["at"]) > REPORT_FRESH_S:
                continue
            for row in report["endpoints"]:
                loads[row["url"]] = loads.get(row["url"], 0) + int(row["sessions"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return loads


def _prune(folder: Path) -> None:
    here = socket.gethostname()
    for path in folder.glob("*.json") if folder.is_dir() else ():
        try:
            report = json.loads(path.read_text())
            stale = time.time() - float(report["at"]) > 86400
            if stale or (report["host"] == here and not pid_alive(int(report["pid"]))):
                path.unlink(missing_ok=True)
        except (OSError, ValueError, KeyError, TypeError):
            continue


def pid_alive(pid: int) -> bool:
    """Whether a process of this machine is still there (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
