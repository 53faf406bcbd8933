"""Applying a repair to a template file (`dsl repair apply`, the runs page's button): the diff
(a run's `repairDiff`, or the one `dsl test --live --suggest` finds for a case) applied to the
file as it is now, the changed template checked, its test cases run live with it, and only when
every one passes, the file replaced whole. Otherwise a coded refusal and the file as it was.

Runs the cases through `run_once`, as `dsl test` does; writes nothing else.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import whatthepatch

from taskplate.contract import ErrorCode, FileRefused, TaskplateError, read_bounded, write_whole
from taskplate.dsl import Template, case_file_of, check_source, load_cases

from .._library import TemplateLibrary
from ..runs import Limits, RunManager
from ._expectations import broken
from ._running import preflight, run_once

MOST_BYTES = 4 * 1024 * 1024  # a template file read to apply a diff to: as a case file


@dataclass(frozen=True)
class Patch:
    """A repair to write: the template file it changes and a unified diff of its source."""

    template: Path
    diff: str
    repairs: list[dict[str, Any]] = field(
        default_factory=list
    )  # a run's: {stepId, line, old, new, confidence}


@dataclass(frozen=True)
class Applied:
    """A repair written: the file, the cases that passed live with it first."""

    template: Path
    diff: str
    cases: list[str]


def patch_of_run(answer: dict[str, Any], source: str | None) -> Patch:
    """The repair a run found (get_task_run's answer: `repairDiff` beside its `repairs`, or
    `suggestedRepairs` when the template only suggests) for its template's file `source`."""
    run_id = answer.get("runId", "")
    details = (answer.get("error") or {}).get("details") or {}
    diff = answer.get("repairDiff") or details.get("repairDiff")
    if not isinstance(diff, str) or not diff.strip():
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"run {run_id} has no repair to apply",
            "A run finds one when a selector of its template finds nothing and the element is "
            "found by its fingerprint (the template's heal: suggest or apply); for a template "
            "with test cases, `dsl repair apply --from-test TEMPLATE` finds one live.",
        )
    if not source or not Path(source).is_file():
        raise TaskplateError(
            ErrorCode.TEMPLATE_NOT_FOUND,
            f"run {run_id}: the file of template {answer.get('templateId')!r} is not found",
            "Name the file: dsl repair apply RUN_ID --file TEMPLATE.yaml.",
        )
    repairs = answer.get("repairs") or answer.get("suggestedRepairs") or details.get("repairs")
    return Patch(Path(source), diff, list(repairs or []))


def patched_source(patch: Patch) -> tuple[str, str]:
    """The template's source now, and with the diff applied; INVALID_PARAMETER when the file
    changed where the diff changes it (or cannot be read)."""
    try:
        before = read_bounded(patch.template, MOST_BYTES).decode("utf-8")
    except (OSError, FileRefused, UnicodeDecodeError) as exc:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{patch.template}: cannot read the template ({exc.__class__.__name__})",
            "Give a readable UTF-8 template file of at most 4 MiB.",
        ) from None
    diffs = list(whatthepatch.parse_patch(patch.diff))
    if len(diffs) != 1:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{patch.template}: the repair is not a diff of one file",
            "Find the repair again (`dsl test --live --suggest`).",
        )
    try:
        lines = whatthepatch.apply_diff(diffs[0], before.splitlines())
    except Exception as exc:  # the library's HunkApplyException and its kin
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{patch.template}: the template changed since the repair was found, so its diff "
            f"does not apply ({str(exc).splitlines()[0][:200]})",
            "Find the repair again on the template as it is now (`dsl test --live --suggest`).",
        ) from None
    after = "\n".join(lines) + ("\n" if before.endswith("\n") else "")
    return before, after


async def apply_repair(runs: RunManager, patch: Patch) -> Applied:
    """The repair written into its template file once the changed template checks and every
    test case of it passes live with it; a coded refusal, the file untouched, otherwise. `runs`
    runs the cases (a run manager of their own, running)."""
    before, after = patched_source(patch)
    checked = check_source(after, str(patch.template), runs.wiring.catalog)
    if checked.template is None:
        problems = "; ".join(d.message for d in checked.diagnostics[:3])
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{patch.template}: not written: the template does not check with the repair: "
            f"{problems}",
            "Fix the template by hand.",
        )
    passed = await _cases_pass(runs, patch.template, checked.template)
    if read_bounded(patch.template, MOST_BYTES).decode("utf-8") != before:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{patch.template}: not written: the file changed while its cases ran",
            "Apply the repair again.",
        )
    write_whole(patch.template, after.encode("utf-8"))
    return Applied(patch.template, patch.diff, passed)


async def _cases_pass(runs: RunManager, path: Path, template: Template) -> list[str]:
    """The ids of the template's test cases, each run live with the changed template; the
    first that fails is the refusal (ASSERTION_FAILED, naming it and what broke)."""
    file = case_file_of(path)
    if not file.is_file():
        return []
    passed = []
    for case in load_cases(file):
        preflight(case, template, live=True)
        answer = await run_once(runs, case, template, live=True)
        failed = broken(case.expect, answer)
        if failed:
            first = failed[0]
            detail = first.detail.splitlines()[0] if first.detail else ""
            raise TaskplateError(
                ErrorCode.ASSERTION_FAILED,
                f"{path}: not written: the case {case.id} ({case.file.name}:{case.line}) fails "
                f"live with the repair: {first.what}: {detail}",
                "The file is unchanged. Fix the template by hand, or record the case again "
                "(`dsl record`) if the site changed on purpose.",
                {"case": case.id},
            )
        passed.append(case.id)
    return passed


async def apply_in_scratch(
    patch: Patch, library: TemplateLibrary, limits: Limits | None = None
) -> Applied:
    """`apply_repair` with the cases run by a run manager of their own, in a data home of their
    own (gone after)."""
    with tempfile.TemporaryDirectory(prefix="taskplate-repair-") as home:
        runs = RunManager(Path(home), library, limits=limits)
        async with runs.running():
            return await apply_repair(runs, patch)


async def apply_run_repair(runs: RunManager, run_id: str, file: str | None = None) -> Applied:
    """The repair run `run_id` found, applied to its template's file (`file`, or the one the
    library serves the run's template from; never a template taskplate ships): `dsl repair
    apply RUN_ID` and the runs page's button."""
    answer = await runs.describe(run_id)
    if file is None:
        try:
            template = runs.library.get(answer["templateId"], answer["templateVersion"])
        except TaskplateError:
            template = None
        if template is not None and runs.library.is_shipped(template):
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"run {run_id}: {template.id} is a template taskplate ships, not a file to change",
                "Copy it among your templates (`dsl template new`), then repair the copy.",
            )
        file = template.source if template is not None else None
    patch = patch_of_run(answer, file)
    return await apply_in_scratch(patch, runs.library, runs.limits)
