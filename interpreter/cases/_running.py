"""Running one test case: its template run by the run manager, offline from its recording
(every request served from the HAR, `now()` fixed at the time it was recorded) or live, then
its expectations checked. The one path `dsl test` and `dsl record` share.

Runs nothing of its own: the run goes through `RunManager.submit`, as every run does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taskplate.browser import MASK, HarRecording, HarReplay, read_har, write_har
from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import Case, Template, check_inputs_known, fixed_clock, resolved_inputs
from taskplate.stdlib import HttpRecording, HttpReplay, Sampler, WebConfig

from .._action_steps import StepProbe
from ._answers import ReplaySampler, ReplayTools
from ._expectations import Broken, broken, drift, said_once
from ._profiles import CaseProfiles

if TYPE_CHECKING:
    from ..runs import RunManager

RECORDED_BY = "_taskplate"


@dataclass
class CaseResult:
    """What one case came to: passed, failed (with what broke) or could not run (why)."""

    case: Case
    answer: dict[str, Any] = field(default_factory=dict)
    broken: list[Broken] = field(default_factory=list)
    error: str | None = None  # could not run: a bad case, a missing recording
    drift: list[str] = field(default_factory=list)  # live: how the output moved from the recording
    seconds: float = 0.0

    @property
    def outcome(self) -> str:
        return "error" if self.error else "failed" if self.broken else "passed"

    @property
    def drift_said(self) -> list[str]:
        """The drift as a summary says it (`said_once`): one diff per failing case."""
        return said_once(self.drift, self.broken)

    @property
    def element_lost(self) -> bool:
        """Whether a step failed because a selector found nothing (what `--suggest` repairs)."""
        return self.outcome == "failed" and any(
            (s.get("error") or {}).get("code") == ErrorCode.ELEMENT_NOT_FOUND
            for s in self.answer.get("steps", [])
        )

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "case": self.case.id,
            "file": str(self.case.file),
            "line": self.case.line,
            "outcome": self.outcome,
            "seconds": round(self.seconds, 3),
        }
        if self.error:
            out["error"] = self.error
        if self.broken:
            out["broken"] = [b.as_json() for b in self.broken]
        if self.drift:
            out["drift"] = self.drift
        if self.answer:
            out["runId"] = self.answer.get("runId")
            out["status"] = self.answer.get("status")
        return out


def checked_template(runs: RunManager, path: Path) -> Template:
    """The template file checked into the run manager's library, or its problems as an error;
    served whatever the configuration switches off (a case tests the template as code)."""
    checked = runs.library.add_case_file(path)
    if checked is None:
        problems = "; ".join(d.message for d in runs.library.rejected.get(str(path), []))
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{path}: the template does not check: {problems or 'it cannot be read'}",
            f"Run `dsl validate {path}`.",
        )
    return checked


@dataclass
class Recorded:
    """How a run meets the world: the browser's network and plain HTTP, each recorded or
    replayed, the model the run chooses passed through `models` and the actions it may call
    through `tools` (their providers' answers recorded, or replaced by a recording's). All
    None: live."""

    browser: HarRecording | HarReplay | None = None
    http: HttpRecording | HttpReplay | None = None
    models: Callable[[Sampler], Sampler] | None = None
    probe: StepProbe | None = None  # reads browser steps' pages (`dsl test --suggest`)
    tools: Callable[[Any], Any] | None = None


async def run_template(
    runs: RunManager, template: Template, inputs: dict[str, Any], world: Recorded
) -> dict[str, Any]:
    """The template run once in the given world, with profiles of its own (`CaseProfiles`:
    seeded from the operator's when it meets the real sites); its answer with steps
    (get_task_run's, as a case checks it)."""
    web, profiles = runs.wiring.web, runs.wiring.profiles
    runs.runtime.network, runs.wiring.models = world.browser, world.models
    runs.wiring.probe = world.probe
    runs.wiring.tools = world.tools
    if world.http is not None:
        runs.wiring.web = dataclasses.replace(web or WebConfig(), wrap=world.http.wrap)
    replayed = isinstance(world.browser, HarReplay)
    try:
        with tempfile.TemporaryDirectory(prefix="taskplate-case-profiles-") as scratch:
            runs.wiring.profiles = CaseProfiles(Path(scratch), None if replayed else profiles)
            run_id = await runs.submit(
                template.id, inputs, version=template.version, options={}, template=template
            )
            await runs.wait(run_id)
            return await runs.describe(run_id, include_steps=True)
    finally:
        runs.runtime.network, runs.wiring.models, runs.wiring.web = None, None, web
        runs.wiring.probe = None
        runs.wiring.tools = None
        runs.wiring.profiles = profiles


def preflight(case: Case, template: Template, *, live: bool) -> None:
    """What must hold before a case runs: the inputs its template declares and, offline, a
    readable recording made of this template."""
    check_inputs_known(case, template.inputs_schema)
    if live:
        return
    har = read_har(case.recording)
    made = har["log"].get(RECORDED_BY, {})
    if isinstance(made, dict) and made.get("template") not in (None, case.template.name):
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{case.file}:{case.line}: case {case.name!r}: the recording {case.recording.name} "
            f"was made of {made.get('template')}, not {case.template.name}",
            "Record the case again with `dsl record`.",
        )


def recorded_by(
    har: dict[str, Any],
    template: Path,
    case: str,
    answers: list[dict[str, Any]],
    calls: list[dict[str, Any]],
) -> dict[str, Any]:
    """The HAR marked with the template and case it was recorded for, and holding the model's
    answers and the providers' tool calls (a HAR's own fields start with `_`)."""
    made = {"template": template.name, "case": case, "answers": answers, "calls": calls}
    har["log"][RECORDED_BY] = made
    return har


async def run_case(
    runs: RunManager, case: Case, *, live: bool, template: Template | None = None
) -> CaseResult:
    """The case run and checked; a problem of the case itself is its result's `error`. Live,
    the recording is replayed too, and how the output drifted from it is the result's `drift`.
    `template`: the case's, when the caller checked it already (cases of one template share it)."""
    started = time.monotonic()
    result = CaseResult(case)
    try:
        template = template or checked_template(runs, case.template)
        preflight(case, template, live=live)
        result.answer = await run_once(runs, case, template, live=live)
        result.broken = broken(case.expect, result.answer)
        if live and case.recording.is_file():
            recorded = await run_once(runs, case, template, live=False)
            result.drift = drift(recorded.get("result"), result.answer.get("result"))
    except TaskplateError as exc:
        result.error = f"{exc.code}: {exc.message}"
    result.seconds = time.monotonic() - started
    return result


async def run_once(
    runs: RunManager,
    case: Case,
    template: Template,
    *,
    live: bool,
    probe: StepProbe | None = None,
) -> dict[str, Any]:
    """One run of the case: live (with the model the configuration names), or offline from its
    recording (the network, the model's answers, the providers' answers and the clock);
    `probe` reads its pages."""
    inputs = resolved_inputs(case, offline=not live, mask=MASK)
    if live:
        return await run_template(runs, template, inputs, Recorded(probe=probe))
    har = read_har(case.recording)  # once, for the browser, plain HTTP, the model and tools
    made = har["log"].get(RECORDED_BY, {})
    answers = ReplaySampler(made.get("answers", []))
    # Playwright reads the HAR it serves from a file: a copy of what was read and checked, not
    # the case's file again (which may have changed meanwhile)
    with tempfile.TemporaryDirectory(prefix="taskplate-replay-") as folder:
        checked = Path(folder) / "recording.har"
        write_har(har, checked)
        world = Recorded(
            HarReplay(checked, har),
            HttpReplay(har["log"]["entries"]),
            lambda _: answers,
            probe,
            ReplayTools(made.get("calls", [])).around,
        )
        with fixed_clock(case.clock) if case.clock else contextlib.nullcontext():
            return await run_template(runs, template, inputs, world)
