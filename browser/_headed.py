"""A headed window for a hand-over to a local person: its own headed Chromium (the headless
shell cannot show one) with a copy of the session's cookies and storage, on the session's page.
What the person did there is copied back into the session; closing ends the browser process."""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from playwright.async_api import Browser, BrowserContext, Page, Playwright

from taskplate.contract import ErrorCode

from ._cleanup import cleanup
from ._driver import start_driver
from ._errors import translate
from ._runtime import DEBIAN_CHROMIUM, LAUNCH_ARGS, find_chromium

SETTING = "TASKPLATE_HAND_OVER_WINDOW"  # "0": never open a window (URL and screenshot only)
OPEN_TIMEOUT_S = 60


def can_show_window(env: Mapping[str, str] | None = None) -> bool:
    """A display exists (X or Wayland) and the setting does not turn the window off."""
    env = os.environ if env is None else env
    if env.get(SETTING, "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def _headed_chromium(playwright_path: str | None) -> str:
    """find_chromium's answer, unless it is a headless shell: then Debian's full Chromium."""
    found = find_chromium(playwright_path)
    if "headless" in Path(found).name.lower() or "headless_shell" in found:
        if Path(DEBIAN_CHROMIUM).exists():
            return DEBIAN_CHROMIUM
        raise RuntimeError(f"{found} is a headless shell; a window needs a full Chromium")
    return found


@dataclass
class HeadedWindow:
    """One open window; `page` is where the person acts."""

    playwright: Playwright
    browser: Browser
    context: BrowserContext
    page: Page
    marker: str  # on the browser's command line: tests find (and miss) its processes by it

    @staticmethod
    async def open(session_page: Page, options: dict[str, Any] | None = None) -> HeadedWindow:
        """A headed browser on the session page's URL, with the session context's state;
        `options`: the run's proxy and identity (`Network.window_options`)."""
        state: Any = await session_page.context.storage_state()
        marker = f"--taskplate-hand-over={uuid.uuid4().hex}"
        pw = await start_driver()
        browser: Browser | None = None
        try:
            with anyio.fail_after(OPEN_TIMEOUT_S):
                browser = await pw.chromium.launch(
                    executable_path=_headed_chromium(pw.chromium.executable_path),
                    headless=False,
                    args=[*LAUNCH_ARGS, marker],
                    env=dict(os.environ),
                )
                context = await browser.new_context(
                    storage_state=state, no_viewport=True, **(options or {})
                )
                page = await context.new_page()
                if session_page.url.startswith(("http:", "https:", "file:")):
                    await page.goto(session_page.url, wait_until="domcontentloaded")
            return HeadedWindow(pw, browser, context, page, marker)
        except BaseException:
            if browser is not None:
                with cleanup(what="closing the headed browser"):
                    await browser.close()
            with cleanup(what="stopping Playwright's driver"):
                await pw.stop()
            raise

    async def copy_back(self, session_page: Page) -> None:
        """The window's cookies and localStorage into the session; its tab on the window's URL."""
        if not self.browser.is_connected():  # the person closed the browser: nothing to copy
            return
        try:
            state: Any = await self.context.storage_state()
            if state["cookies"]:
                await session_page.context.add_cookies(state["cookies"])
            final = self.page.url if not self.page.is_closed() else session_page.url
            await self._local_storage(session_page, state)
            if final != session_page.url and final.startswith(("http:", "https:", "file:")):
                await session_page.goto(final, wait_until="domcontentloaded")
                await self._local_storage(session_page, state)
        except Exception as exc:
            raise translate(
                exc,
                doing="copying the hand-over window back into the session",
                timeout_code=ErrorCode.NAVIGATION_TIMEOUT,
            ) from None

    @staticmethod
    async def _local_storage(page: Page, state: Any) -> None:
        origin = await page.evaluate("location.origin")
        for entry in state.get("origins", []):
            if entry["origin"] == origin and entry.get("localStorage"):
                await page.evaluate(
                    "items => { for (const i of items) localStorage.setItem(i.name, i.value) }",
                    entry["localStorage"],
                )

    async def close(self) -> None:
        """The browser process and Playwright's driver end; safe to call twice, never raises."""
        with cleanup(what="closing the headed browser"):
            await self.browser.close()
        with cleanup(what="stopping Playwright's driver"):
            await self.playwright.stop()
