"""`dsl login`'s browser side: a persistent context in browser-data/<profile> (the only place a
user-data dir is used), snapshots published every few seconds and at the end, under login.lock.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from taskplate.contract import ErrorCode, TaskplateError

from ._cleanup import cleanup
from ._profiles import ProfileStore, with_indexed_db

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

log = logging.getLogger("taskplate.login")
PUBLISH_EVERY_S = 5.0


@dataclass
class LoginOutcome:
    profile_id: str
    version: int
    done: bool  # the until-condition was met (or there was none)
    reason: str


@contextmanager
def login_lock(folder: Path, profile_id: str) -> Iterator[None]:
    """Hold login.lock; a second login for the profile fails at once, naming the holder."""
    path = folder / "login.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace").strip() or "another process"
            raise TaskplateError(
                ErrorCode.EXECUTION_ERROR,
                f"profile {profile_id} is already being logged in by {holder}",
                "Finish or stop that login first (it holds login.lock).",
            ) from None
        holder = json.dumps(
            {
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "since": time.strftime("%Y-%m-%dT%H:%M:%S"),
            }
        )
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder.encode(), 0)
        yield
    finally:
        os.close(fd)


async def _publish(store: ProfileStore, profile_id: str, context: BrowserContext) -> int:
    state = await context.storage_state(indexed_db=with_indexed_db())
    current = store.read(profile_id).version
    _, version = store.publish_state(profile_id, dict(state), current)
    log.info("profile %s: published snapshot version %d", profile_id, version)
    return version


async def login(
    store: ProfileStore,
    profile_id: str,
    data_dir: Path,
    url: str | None = None,
    until_selector: str | None = None,
    until_url: str | None = None,
    headless: bool = False,
    timeout_s: float = 300,
    executable: str | None = None,
) -> LoginOutcome:
    folder = store.ensure(profile_id)
    pattern = re.compile(until_url) if until_url else None
    with login_lock(folder, profile_id):
        from ._driver import start_driver  # once the lock is ours
        from ._runtime import LAUNCH_ARGS, find_chromium

        user_data = data_dir / profile_id
        user_data.mkdir(parents=True, exist_ok=True, mode=0o700)
        pw = await start_driver()
        try:
            context = await pw.chromium.launch_persistent_context(
                str(user_data),
                executable_path=executable
                or find_chromium(pw.chromium.executable_path, headless=headless),
                headless=headless,
                args=list(LAUNCH_ARGS),
            )
            try:
                snapshot = store.read(profile_id)
                if snapshot.state.get("cookies"):
                    await context.add_cookies(snapshot.state["cookies"])
                page = context.pages[0] if context.pages else await context.new_page()
                if url:
                    await page.goto(url)
                done, reason = await _watch(
                    store, profile_id, context, until_selector, pattern, timeout_s
                )
                version = await _publish(store, profile_id, context)
                return LoginOutcome(profile_id, version, done, reason)
            finally:
                await context.close()
        finally:
            with cleanup(what="stopping Playwright's driver"):
                await pw.stop()


async def _watch(
    store: ProfileStore,
    profile_id: str,
    context: BrowserContext,
    selector: str | None,
    pattern: re.Pattern[str] | None,
    timeout_s: float,
) -> tuple[bool, str]:
    """Until the condition holds, the window closes, or the time is up; a snapshot every 5 s."""
    deadline = time.monotonic() + timeout_s
    last_publish = time.monotonic()
    while time.monotonic() < deadline:
        if not context.pages:
            return selector is None and pattern is None, "the browser window was closed"
        page = context.pages[-1]
        try:
            if selector and await page.locator(selector).count() > 0:
                return True, f"found {selector}"
            if pattern and any(pattern.search(p.url) for p in context.pages):
                return True, f"reached a URL matching {pattern.pattern}"
        except Exception:  # the page is navigating; look again
            pass
        if time.monotonic() - last_publish >= PUBLISH_EVERY_S:
            await _publish(store, profile_id, context)
            last_publish = time.monotonic()
        await anyio.sleep(0.2)
    return selector is None and pattern is None, f"stopped after {timeout_s:g} s"
