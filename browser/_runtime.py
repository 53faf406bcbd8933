"""The browser process: launched lazily through Playwright (or connected to a remote one), one
per taskplate process, relaunched after a crash. Knows nothing of templates or sessions' use.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from playwright.async_api import Browser, BrowserContext, Playwright

from taskplate.contract import ErrorCode, TaskplateError

from ._cleanup import cleanup
from ._driver import start_driver
from ._endpoints import (
    CONNECT_TIMEOUT_MS,
    HEALTH_EVERY_S,
    HEALTH_TIMEOUT_S,
    REPORT_EVERY_S,
    SLOW_CHECKS,
    Endpoint,
    parse_endpoints,
    unavailable,
    write_report,
)
from ._errors import is_crash
from ._har import HarRecording, HarReplay

LAUNCH_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # Pages left behind are never gone back to: keeping them alive (up to 6 a tab) is waste.
    "--disable-features=BackForwardCache",
)
DEBIAN_CHROMIUM = "/usr/bin/chromium"
HEADLESS_SHELL = "chromium-headless-shell"
# Playwright turns Chromium's popup blocker off; on, most windows a page opens by itself
# (without a click or key press) are never even created, as in a normal browser.
KEEP_POPUP_BLOCKER = ["--disable-popup-blocking"]


@dataclass(frozen=True)
class BrowserConfig:
    """Where browsers come from: a local executable, or remote endpoints (a pool)."""

    executable: str | None = (
        None  # None: find_chromium (TASKPLATE_CHROMIUM, Playwright's, Debian's)
    )
    endpoint: str | None = None  # ws://… (Playwright server) or http://… (CDP)
    endpoint_headers: tuple[tuple[str, str], ...] = ()  # sent when connecting (auth, options)
    headless: bool = True
    extra_args: tuple[str, ...] = ()
    endpoints: tuple[str, ...] = ()  # several endpoints: sessions are spread over them

    @property
    def remote(self) -> tuple[str, ...]:
        """Every remote endpoint; empty: the local Chromium is launched."""
        return self.endpoints or ((self.endpoint,) if self.endpoint else ())

    @staticmethod
    def from_env(endpoints: str | None = None) -> BrowserConfig:
        """TASKPLATE_BROWSER_ENDPOINTS (or one TASKPLATE_BROWSER_ENDPOINT), and
        TASKPLATE_BROWSER_HEADERS (a JSON object). `endpoints` (`dsl serve --browser-endpoints`)
        wins over the environment."""
        raw = os.environ.get("TASKPLATE_BROWSER_HEADERS") or "{}"
        try:
            headers = json.loads(raw)
        except ValueError:
            headers = None
        if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                "TASKPLATE_BROWSER_HEADERS is not a JSON object of strings",
                'Set it like {"Authorization": "Bearer …"} or unset it.',
            )
        listed = (
            endpoints if endpoints is not None else os.environ.get("TASKPLATE_BROWSER_ENDPOINTS")
        )
        source = "--browser-endpoints" if endpoints is not None else "TASKPLATE_BROWSER_ENDPOINTS"
        return BrowserConfig(
            endpoint=os.environ.get("TASKPLATE_BROWSER_ENDPOINT") or None,
            endpoint_headers=tuple(headers.items()),
            endpoints=parse_endpoints(listed, source=source) if listed else (),
        )


def find_chromium(playwright_path: str | None = None, *, headless: bool = False) -> str:
    """TASKPLATE_CHROMIUM, then Playwright's own Chromium if installed, then Debian's.

    Headless, Debian's old headless shell (package chromium-headless-shell) comes before
    Debian's full browser when installed, as Playwright itself runs its own headless shell: the
    same Blink and V8 without the desktop browser's per-page machinery, about a third less CPU
    per page read (bench/mcp.py)."""
    configured = os.environ.get("TASKPLATE_CHROMIUM")
    if configured:
        if not Path(configured).exists():
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"TASKPLATE_CHROMIUM points at {configured}, which does not exist",
                "Set TASKPLATE_CHROMIUM to a Chromium executable or unset it.",
            )
        return configured
    if playwright_path and Path(playwright_path).exists():
        return playwright_path
    shell = shutil.which(HEADLESS_SHELL) if headless else None
    if shell:
        return shell
    found = DEBIAN_CHROMIUM if Path(DEBIAN_CHROMIUM).exists() else shutil.which("chromium")
    if not found:
        raise TaskplateError(
            ErrorCode.EXECUTION_ERROR,
            "no Chromium found",
            "Install it (apt-get install chromium on Debian and Ubuntu; elsewhere "
            "`python -m playwright install chromium`) or set TASKPLATE_CHROMIUM.",
        )
    return found


@dataclass
class BrowserRuntime:
    """Owns Playwright and the browsers; `browser()` answers a live one, starting it if needed.

    Without endpoints it launches the local Chromium (again after a crash). With endpoints it
    connects to them, opens each new context in the one with the fewest open, and stops using
    one that fails (down, tried again after a backoff) until it answers again."""

    config: BrowserConfig = field(default_factory=BrowserConfig.from_env)
    marker: str = field(default_factory=lambda: f"--taskplate-instance={uuid.uuid4().hex}")
    launches: int = 0
    _playwright: Playwright | None = None
    _browser: Browser | None = None
    _lock: anyio.Lock = field(default_factory=anyio.Lock)
    pool: list[Endpoint] = field(default_factory=list)
    # Every context records its traffic (`dsl record`) or is served from a recording (`dsl test`).
    network: HarRecording | HarReplay | None = None

    def __post_init__(self) -> None:
        self.pool = [Endpoint(url) for url in self.config.remote]

    async def _driver(self) -> Playwright:
        async with self._lock:
            return await self._driver_started()

    async def _driver_started(self) -> Playwright:
        if self._playwright is None:
            self._playwright = await start_driver()
        return self._playwright

    async def browser(self) -> Browser:
        if self.pool:
            return await self._connected(self._choose())
        async with self._lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            self._browser = await self._start(await self._driver_started())
            self.launches += 1
            return self._browser

    async def _start(self, pw: Playwright) -> Browser:
        try:
            path = self.config.executable or find_chromium(
                pw.chromium.executable_path, headless=self.config.headless
            )
            return await pw.chromium.launch(
                executable_path=path,
                headless=self.config.headless,
                args=[*LAUNCH_ARGS, self.marker, *self.config.extra_args],
                ignore_default_args=KEEP_POPUP_BLOCKER,
            )
        except TaskplateError:
            raise
        except Exception as exc:
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"could not start or reach the local Chromium: {_first_line(exc)}",
                "Run `dsl doctor` to check the browser set-up.",
            ) from None

    # -- the pool -----------------------------------------------------------------------------
    def _choose(self, tried: tuple[Endpoint, ...] = ()) -> list[Endpoint]:
        """Endpoints to try, in order: those not down by fewest contexts (open or opening);
        when every one is down, all of them by the soonest retry (a pool never refuses
        untried). A down endpoint comes back through `check()`, not on a caller's time."""
        left = [e for e in self.pool if e not in tried]
        usable = [e for e in left if not e.down]
        if usable:
            return sorted(usable, key=lambda e: (e.load, not e.up))
        return sorted(left, key=lambda e: e.down_until)

    async def _connected(self, candidates: list[Endpoint]) -> Browser:
        for endpoint in candidates:
            with contextlib.suppress(_Failed):
                return await self._connect(endpoint)
        raise unavailable(self.pool)

    async def _connect(self, endpoint: Endpoint) -> Browser:
        pw = await self._driver()
        async with endpoint.lock:
            if endpoint.browser is not None and endpoint.browser.is_connected():
                return endpoint.browser
            headers = dict(self.config.endpoint_headers)
            try:
                if endpoint.url.startswith(("ws://", "wss://")):
                    browser = await pw.chromium.connect(
                        endpoint.url, headers=headers, timeout=CONNECT_TIMEOUT_MS
                    )
                else:
                    browser = await pw.chromium.connect_over_cdp(
                        endpoint.url, headers=headers, timeout=CONNECT_TIMEOUT_MS
                    )
            except Exception as exc:
                endpoint.mark_down(f"could not connect: {_first_line(exc)}")
                raise _Failed from None
            endpoint.browser = browser
            endpoint.mark_up()
            browser.on("disconnected", lambda b: self._lost(endpoint, b))
            self.launches += 1
            return browser

    def _lost(self, endpoint: Endpoint, browser: Browser) -> None:
        if endpoint.browser is browser:
            endpoint.mark_down("disconnected")

    async def new_context(
        self, network: HarRecording | HarReplay | None = None, **options: Any
    ) -> BrowserContext:
        """A new context, its network recorded or replayed by `network` (a session's own),
        else by the runtime's (every run's, under `dsl record` and `dsl test`)."""
        network = network or self.network
        if network is None:
            return await self._new_context(options)
        context = await self._new_context({**options, **network.context_options()})
        await network.attach(context)
        return context

    async def _new_context(self, options: dict[str, Any]) -> BrowserContext:
        if self.pool:
            return await self._pooled_context(options)
        browser = await self.browser()
        try:
            return await browser.new_context(**options)
        except Exception:
            # The browser may have died between the check and the call: one relaunch, one retry.
            browser = await self.browser()
            return await browser.new_context(**options)

    async def _pooled_context(self, options: dict[str, Any]) -> BrowserContext:
        """A context in the least loaded endpoint; an endpoint that fails here is marked down
        and the next one is tried: nothing was done in the context yet."""
        tried: tuple[Endpoint, ...] = ()
        while candidates := self._choose(tried):
            endpoint = candidates[0]
            tried += (endpoint,)
            endpoint.opening += 1  # counted at once: concurrent sessions spread too
            try:
                browser = await self._connect(endpoint)
                with anyio.fail_after(CONNECT_TIMEOUT_MS / 1000):  # a hung endpoint is down
                    context = await browser.new_context(**options)
            except _Failed:
                continue
            except Exception as exc:
                if (
                    browser.is_connected()
                    and not is_crash(exc)
                    and not isinstance(exc, TimeoutError)
                ):
                    raise  # the options were refused, not the endpoint
                await _failed(
                    endpoint, browser, f"could not open a context: {_first_line(exc)}", exc
                )
                continue
            finally:
                endpoint.opening -= 1
            _count(endpoint, context)
            return context
        raise unavailable(self.pool)

    def endpoint_of(self, browser: Browser | None) -> Endpoint | None:
        """The pool endpoint a browser object came from (None: the local browser)."""
        if browser is None:
            return None
        return next((e for e in self.pool if e.browser is browser), None) or next(
            (e for e in self.pool if any(c.browser is browser for c in e.contexts)), None
        )

    async def check(self, *, round_trip: bool = True) -> None:
        """One health check of every endpoint: a connected one answers a DevTools round trip
        in time or is marked down (`round_trip`); a down one whose pause is over, or one never
        connected, is connected again."""
        for endpoint in self.pool:
            browser = endpoint.browser
            if browser is not None and browser.is_connected():
                if round_trip:
                    await self._round_trip(endpoint, browser)
            elif endpoint.may_try():
                with contextlib.suppress(_Failed):
                    await self._connect(endpoint)

    async def _round_trip(self, endpoint: Endpoint, browser: Browser) -> None:
        try:
            with anyio.fail_after(HEALTH_TIMEOUT_S):
                cdp = await browser.new_browser_cdp_session()
                await cdp.send("Browser.getVersion")
                await cdp.detach()
            endpoint.mark_up()
        except Exception as exc:
            await _failed(endpoint, browser, f"health check failed: {_first_line(exc)}", exc)

    async def watch(self, report: Path | None = None, every_s: float = HEALTH_EVERY_S) -> None:
        """Checks the pool until cancelled: a round trip to each endpoint every `every_s`
        seconds, down endpoints retried as their pause ends; keeps the endpoints' load in
        `report` for `dsl doctor` (removed on leaving). No pool: returns at once."""
        if not self.pool:
            return
        try:
            checked = -every_s
            while True:
                full = time.monotonic() - checked >= every_s
                await self.check(round_trip=full)
                if full:
                    checked = time.monotonic()
                if report is not None:
                    with contextlib.suppress(OSError):
                        write_report(report, self.status())
                await anyio.sleep(min(every_s, REPORT_EVERY_S))
        finally:
            if report is not None:
                with contextlib.suppress(OSError):
                    report.unlink(missing_ok=True)

    def status(self) -> list[dict[str, Any]]:
        """Each endpoint's state and load (contexts open in it), for `dsl doctor` and tools."""
        return [e.status() for e in self.pool]

    @property
    def version(self) -> str:
        if self.pool:
            return next((e.browser.version for e in self.pool if e.up and e.browser), "")
        return self._browser.version if self._browser is not None else ""

    async def close(self) -> None:
        async with self._lock:
            browsers = [self._browser, *(e.browser for e in self.pool)]
            self._browser = None
            for endpoint in self.pool:
                endpoint.browser = None
                endpoint.contexts.clear()
            for browser in browsers:
                if browser is not None:
                    with cleanup(what="closing a browser"):
                        await browser.close()
            if self._playwright is not None:
                with cleanup(what="stopping Playwright's driver"):
                    await self._playwright.stop()
                self._playwright = None


def _count(endpoint: Endpoint, context: BrowserContext) -> None:
    """The context counts in its endpoint's load while it is open."""
    endpoint.contexts.add(context)
    context.on("close", lambda closed: endpoint.contexts.discard(closed))


class _Failed(Exception):
    """An endpoint could not be reached (it is marked down already)."""


async def _failed(endpoint: Endpoint, browser: Browser, reason: str, exc: Exception) -> None:
    """An endpoint that failed a health check or a new context: marked down and its browser
    closed (its sessions fail and are retried elsewhere). One still connected that only took
    too long while sessions run in it (a busy host) is marked slow instead: the work running
    there is not killed for a late answer, until SLOW_CHECKS such failures in a row."""
    slow = isinstance(exc, TimeoutError) and browser.is_connected() and bool(endpoint.contexts)
    if slow and endpoint.failures + 1 < SLOW_CHECKS:
        endpoint.mark_slow(reason)
        return
    endpoint.mark_down(reason)
    shielded = anyio.CancelScope(shield=True)
    with shielded, anyio.move_on_after(5), contextlib.suppress(Exception):
        await browser.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
