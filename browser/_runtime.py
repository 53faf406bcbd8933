"""The browser process: launched lazily through Playwright (or connected to a remote one), one
per taskplate process, relaunched after a crash. Knows nothing of templates or sessions' use.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright

from taskplate.dsl import ErrorCode, TaskplateError

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
    """Where the browser comes from: a local executable, or a remote endpoint."""

    executable: str | None = (
        None  # None: find_chromium (TASKPLATE_CHROMIUM, Playwright's, Debian's)
    )
    endpoint: str | None = None  # ws://… (Playwright server) or http://… (CDP)
    endpoint_headers: tuple[tuple[str, str], ...] = ()  # sent when connecting (auth, options)
    headless: bool = True
    extra_args: tuple[str, ...] = ()

    @staticmethod
    def from_env() -> BrowserConfig:
        """TASKPLATE_BROWSER_ENDPOINT, and TASKPLATE_BROWSER_HEADERS (a JSON object)."""
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
        return BrowserConfig(
            endpoint=os.environ.get("TASKPLATE_BROWSER_ENDPOINT") or None,
            endpoint_headers=tuple(headers.items()),
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
    """Owns Playwright and the browser; `browser()` answers a live one, starting it if needed."""

    config: BrowserConfig = field(default_factory=BrowserConfig.from_env)
    marker: str = field(default_factory=lambda: f"--taskplate-instance={uuid.uuid4().hex}")
    launches: int = 0
    _playwright: Playwright | None = None
    _browser: Browser | None = None
    _lock: anyio.Lock = field(default_factory=anyio.Lock)

    async def browser(self) -> Browser:
        async with self._lock:
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            if self._playwright is None:
                self._playwright = await async_playwright().start()
            self._browser = await self._start(self._playwright)
            self.launches += 1
            return self._browser

    async def _start(self, pw: Playwright) -> Browser:
        endpoint = self.config.endpoint
        try:
            headers = dict(self.config.endpoint_headers)
            if endpoint and endpoint.startswith(("ws://", "wss://")):
                return await pw.chromium.connect(endpoint, headers=headers)
            if endpoint:
                return await pw.chromium.connect_over_cdp(endpoint, headers=headers)
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
            where = endpoint or "the local Chromium"
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"could not start or reach {where}: {str(exc).splitlines()[0]}",
                "Run `dsl doctor` to check the browser set-up.",
            ) from None

    async def new_context(self, **options: Any) -> BrowserContext:
        browser = await self.browser()
        try:
            return await browser.new_context(**options)
        except Exception:
            # The browser may have died between the check and the call: one relaunch, one retry.
            browser = await self.browser()
            return await browser.new_context(**options)

    @property
    def version(self) -> str:
        return self._browser.version if self._browser is not None else ""

    async def close(self) -> None:
        async with self._lock:
            if self._browser is not None:
                with anyio.CancelScope(shield=True):
                    with contextlib.suppress(Exception):
                        await self._browser.close()
                self._browser = None
            if self._playwright is not None:
                with anyio.CancelScope(shield=True):
                    await self._playwright.stop()
                self._playwright = None
