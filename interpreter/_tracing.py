"""What a run did, kept as artifacts: Playwright's own trace of the run's browser context
(`trace: off | on-failure | on`) and a screenshot of every failed browser step.

Watches the run's context and pages only; never decides a run's outcome or touches its steps.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import tempfile
import zipfile
from dataclasses import dataclass
from enum import StrEnum
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import anyio

from taskplate.browser import Session
from taskplate.dsl import ErrorCode, StepStatus, TaskplateError, TrustLevel

from ._executor import StepRecord

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


@dataclass
class RunTrace:
    """Playwright tracing of one run's context: started when the run's session opens, stopped
    (and kept or dropped) when its steps are over."""

    mode: TraceMode
    artifacts: Any  # RunArtifacts: where trace.zip goes
    secrets: list[str]
    context: Any = None  # the BrowserContext being traced
    saw_failure: bool = False
    note: str | None = None  # why no trace was kept although one was asked for

    async def attach(self, session: Session) -> None:
        if self.mode is TraceMode.OFF or self.context is not None:
            return
        context = await session.ensure_open()
        try:
            full = self.mode in EVERYTHING
            await context.tracing.start(screenshots=full, snapshots=full, sources=False)
        except Exception as exc:  # another run traces this shared session already
            self.note = f"not traced: {str(exc).splitlines()[0]}"
            log.warning("a run's trace was not started: %s", self.note)
            return
        self.context = context

    def record(self, step: StepRecord) -> None:
        if step.status is StepStatus.FAILED:
            self.saw_failure = True

    async def finish(self, failed: bool) -> str | None:
        """Stop tracing; answers the trace.zip artifact's id when the mode keeps this run's."""
        context, self.context = self.context, None
        if context is None:
            return None
        keep = self.mode is TraceMode.ON or (failed or self.saw_failure)
        if any(0 < len(s) < MIN_MASKABLE for s in self.secrets):
            keep, self.note = False, "not kept: a secret input is too short to mask"
        with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_TIMEOUT_S):
            try:
                if not keep:
                    await context.tracing.stop()
                    return None
                with tempfile.TemporaryDirectory(prefix="taskplate-trace-") as folder:
                    path = Path(folder) / TRACE_NAME
                    await context.tracing.stop(path=path)
                    raw = path.read_bytes()
                data = await anyio.to_thread.run_sync(masked_zip, raw, self.secrets)
                artifact_id: str = await self.artifacts.save(TRACE_NAME, data, "application/zip")
                return artifact_id
            except Exception as exc:  # the browser went away: there is nothing left to keep
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
        png = await tab.page.screenshot(type="png", timeout=SCREENSHOT_TIMEOUT_S * 1000)
    if not png:
        return None
    artifact_id: str = await artifacts.save(f"failure-{label}.png", png, "image/png")
    return artifact_id
