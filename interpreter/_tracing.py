"""What a run did, kept as artifacts: Playwright's own trace of the run's browser context
(`trace: off | on-failure | on`) and a screenshot of every failed browser step.

Watches the run's context and pages only; never decides a run's outcome or touches its steps.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from enum import StrEnum
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import anyio

from taskplate.browser import Session, screenshot
from taskplate.contract import ErrorCode, StepStatus, TaskplateError, TrustLevel

from ._step_log import StepRow

log = logging.getLogger("taskplate.trace")
TRACE_NAME = "trace.zip"
SCREENSHOT_TIMEOUT_S = 5.0
STOP_TIMEOUT_S = 60.0
# A secret this short cannot be masked in a trace without mangling it (it matches inside other
# text): such a run's trace is not kept.
MIN_MASKABLE = 4


class TraceMode(StrEnum):
    OFF = "off"
    ON_FAILURE = "on-failure"
    ON = "on"


# What each mode records (docs/runs.md): the run's page actions (parameters, timing, errors)
# and the console; `on` adds DOM snapshots before and after each action, the network with
# bodies (Playwright records it only with snapshots) and the screencast film strip. on-failure
# records every run for the few that fail, so only what costs a batch nothing it can see: with
# DOM snapshots and the network it cost 0.86x the pages/s of `off` on a quiet machine
# (bench/batch.py). A failed step's tab is still pictured: its screenshot is an artifact of its
# own (`failure_screenshot`) and an action of the trace.
EVERYTHING = frozenset({TraceMode.ON})


def trace_mode(value: Any, trust: TrustLevel, default: TraceMode | None = None) -> TraceMode:
    """The run's trace mode: the caller's option, else the server's default, else on-failure
    for local callers and off for remote ones."""
    if value is None:
        if default is not None:
            return default
        return TraceMode.ON_FAILURE if trust is TrustLevel.LOCAL else TraceMode.OFF
    try:
        return TraceMode(value)
    except ValueError:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"options.trace is {json.dumps(value)}; it must be off, on-failure or on",
            'Pass "trace": "off", "on-failure" or "on".',
        ) from None


def _needles(secret: str) -> list[bytes]:
    """The forms a secret takes in a trace: as typed, in JSON, URL-encoded, in HTML."""
    forms = {
        secret,
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(secret)[1:-1],
        quote_plus(secret),
        quote(secret, safe=""),
        escape(secret),
    }
    return sorted((f.encode() for f in forms), key=len, reverse=True)


def masked_zip(data: bytes, secrets: list[str]) -> bytes:
    """The trace with every secret's text replaced by *** in every entry (actions' parameters,
    DOM snapshots, request bodies)."""
    needles = [n for s in secrets if s for n in _needles(s)]
    if not needles:
        return data
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            content = source.read(info)
            for needle in needles:
                content = content.replace(needle, b"***")
            target.writestr(info, content)
    return out.getvalue()


# The Trace Viewer reads every `<name>.trace` of a zip as one browser context, with its
# `<name>.network` and `<name>.stacks`; resources are shared by content hash.
_PER_CONTEXT = re.compile(r"^[^/]+\.(trace|network|stacks)$")


def merged_zip(parts: list[bytes]) -> bytes:
    """The traces of several contexts (a run's session retired its context on the way) as one
    trace.zip: each part's own files renamed `<n>-…`, resources stored once."""
    if len(parts) == 1:
        return parts[0]
    out = io.BytesIO()
    written: set[str] = set()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for n, part in enumerate(parts):
            with zipfile.ZipFile(io.BytesIO(part)) as source:
                for info in source.infolist():
                    name = (
                        f"{n}-{info.filename}"
                        if _PER_CONTEXT.match(info.filename)
                        else info.filename
                    )
                    if name not in written:
                        written.add(name)
                        target.writestr(name, source.read(info))
    return out.getvalue()


@dataclass
class RunTrace:
    """Playwright tracing of one run's context: started when the run's session opens, stopped
    (and kept or dropped) when its steps are over. When the session retires its context on a
    long loop, tracing goes on in the new one and the retired one's trace is set aside before
    it closes: a kept trace.zip holds every context of the run."""

    mode: TraceMode
    artifacts: Any  # RunArtifacts: where trace.zip goes
    secrets: list[str]
    context: Any = None  # the BrowserContext being traced
    saw_failure: bool = False
    note: str | None = None  # why no trace was kept although one was asked for
    session: Session | None = None  # the session whose retirements the trace follows
    draining: list[Any] = field(default_factory=list)  # retired contexts, still traced
    folder: Path | None = None  # where the traces of closed contexts wait for the end
    parts: list[Path] = field(default_factory=list)  # those traces, in the order of contexts

    async def attach(self, session: Session) -> None:
        if self.mode is TraceMode.OFF or self.session is not None:
            return
        context = await session.ensure_open()
        if not await self._start(context, "not traced"):
            return
        self.context, self.session = context, session
        session.context_watchers.append(self)

    async def _start(self, context: Any, failing: str) -> bool:
        try:
            full = self.mode in EVERYTHING
            await context.tracing.start(screenshots=full, snapshots=full, sources=False)
        except Exception as exc:  # another run traces this shared session already
            self.note = f"{failing}: {str(exc).splitlines()[0]}"
            log.warning("a run's trace was not started: %s", self.note)
            return False
        return True

    async def context_retired(self, old: Any, new: Any) -> None:
        """The session retired the traced context: go on tracing in its successor."""
        if old is not self.context:
            return
        self.draining.append(old)
        self.context = None
        with anyio.move_on_after(STOP_TIMEOUT_S):
            if await self._start(new, "later pages not traced"):
                self.context = new

    async def context_closing(self, old: Any) -> None:
        """A retired context is about to close: its trace is set aside for the end (shielded
        and bounded by STOP_TIMEOUT_S: a long trace may take a while to write)."""
        if old in self.draining:
            self.draining.remove(old)
            await self._set_aside(old)

    async def _set_aside(self, context: Any) -> None:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="taskplate-trace-"))
        path = self.folder / f"{len(self.parts)}.zip"
        with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_TIMEOUT_S) as waited:
            try:
                await context.tracing.stop(path=path)
                self.parts.append(path)
            except Exception as exc:  # the browser went away: that part is lost
                self.note = f"not kept in full: {str(exc).splitlines()[0]}"
                log.warning("a run's trace was %s", self.note)
        if waited.cancelled_caught:
            self.note = f"not kept in full: writing a part took over {STOP_TIMEOUT_S:.0f} s"
            log.warning("a run's trace was %s", self.note)

    def log_row(self, step: StepRow) -> None:
        if step.status is StepStatus.FAILED:
            self.saw_failure = True

    async def finish(self, failed: bool) -> str | None:
        """Stop tracing; answers the trace.zip artifact's id when the mode keeps this run's."""
        contexts = [*self.draining, *([self.context] if self.context is not None else [])]
        self.draining, self.context = [], None
        if self.session is not None:
            with contextlib.suppress(ValueError):
                self.session.context_watchers.remove(self)
        try:
            return await self._keep(contexts, failed)
        finally:
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)

    async def _keep(self, contexts: list[Any], failed: bool) -> str | None:
        if not contexts and not self.parts:
            return None
        keep = self.mode is TraceMode.ON or (failed or self.saw_failure)
        if any(0 < len(s) < MIN_MASKABLE for s in self.secrets):
            keep, self.note = False, "not kept: a secret input is too short to mask"
        if not keep:
            with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_TIMEOUT_S):
                for context in contexts:
                    with contextlib.suppress(Exception):  # the browser went away
                        await context.tracing.stop()
            return None
        for context in contexts:
            await self._set_aside(context)
        if not self.parts:  # every part was lost (and said so)
            return None
        with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_TIMEOUT_S):
            try:
                parts = [path.read_bytes() for path in self.parts]
                raw = await anyio.to_thread.run_sync(merged_zip, parts)
                data = await anyio.to_thread.run_sync(masked_zip, raw, self.secrets)
                artifact_id: str = await self.artifacts.save(TRACE_NAME, data, "application/zip")
                return artifact_id
            except Exception as exc:  # a broken part, a full disk: nothing is kept
                self.note = f"not kept: {str(exc).splitlines()[0]}"
                log.warning("a run's trace was not kept: %s", self.note)
        return None


async def failure_screenshot(
    artifacts: Any, session: Session | None, tab_id: str | None, label: str
) -> str | None:
    """A PNG of the tab a step failed in, taken before the tab is closed or recycled; None when
    there is no page to show (no session, a crashed or closed tab, a page of an earlier item)."""
    if session is None:
        return None
    tab = session.tabs.get(tab_id or session.main_tab or "")
    if tab is None or tab.crashed or tab.stale:
        return None
    png: bytes | None = None
    with anyio.move_on_after(SCREENSHOT_TIMEOUT_S), contextlib.suppress(Exception):
        png = await screenshot(tab.page, type="png", timeout=SCREENSHOT_TIMEOUT_S * 1000)
    if not png:
        return None
    artifact_id: str = await artifacts.save(f"failure-{label}.png", png, "image/png")
    return artifact_id
