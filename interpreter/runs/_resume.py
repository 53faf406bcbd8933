"""Whether a run whose owner died can go on in this process (`resume_plan`), and why not when it
cannot (RUN_NOT_RESUMABLE): its template changed since it started, it had secret inputs (never
stored), a caller's own session, or a template this process does not know. Decides only; the run
manager claims the run (`Store.adopt`) and runs it, its checkpoints skipping what it finished.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import Template

from .._principal import space_of
from ..store import RunRow
from ._inputs import secret_names

if TYPE_CHECKING:
    from .._library import TemplateLibrary

TEMPLATE_HASH = "templateHash"  # the run's options: the sha-256 of its template's source
GIVEN_SESSION = "givenSession"  # the run's options: it ran in a session its caller handed in
RESUMES = "resumes"  # the run's options: each adoption, {"from": owner, "by": owner, "at": time}


def template_hash(library: TemplateLibrary, template: Template, space: str | None) -> str:
    """What a run keeps of its template to know it again: its text's sha-256. A template of no
    text the library keeps (run_steps' steps) is never known again: a hash of its own."""
    text = library.text(template, space)
    if text is None:
        return f"unkept:{uuid.uuid4().hex}"
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class ResumePlan:
    """A dead owner's running run as this process would resume it: its template, or why not."""

    template: Template | None
    refusal: TaskplateError | None = None
    known: bool = True  # False: this process lacks its template (another may have it)


def resume_plan(library: TemplateLibrary, row: RunRow) -> ResumePlan:
    """How this process would go on with `row` (running, its owner dead)."""
    remote = row.options.get("trust") == "remote"  # its principal's own templates too
    space = space_of(row.principal) if remote else None
    try:
        template = library.get(row.template_id, row.template_version, space)
    except TaskplateError:
        return ResumePlan(
            None,
            not_resumable(
                row.run_id,
                f"template {row.template_id}@{row.template_version} is not known here",
                "Give every server on the store the same templates (dsl run --resume: the "
                "template's folder with --templates), then run it again.",
            ),
            known=False,
        )
    if any(row.inputs.get(k) == "***" for k in secret_names(template.inputs_schema)):
        return ResumePlan(
            None,
            not_resumable(
                row.run_id,
                "the run had secret inputs, which are never stored, so only its own process "
                "could go on with it",
                "Run the template again with its secret inputs.",
            ),
        )
    if row.options.get(GIVEN_SESSION):
        return ResumePlan(
            None,
            not_resumable(
                row.run_id,
                "the run used a browser session its caller handed in, which ended with its process",
                "Create a session again and run the template in it.",
            ),
        )
    if TEMPLATE_HASH not in row.options:
        return ResumePlan(
            None,
            not_resumable(
                row.run_id,
                "the run was started by a taskplate that kept no checkpoints",
                "Run the template again.",
            ),
        )
    if row.options[TEMPLATE_HASH] != template_hash(library, template, space):
        return ResumePlan(
            None,
            not_resumable(
                row.run_id,
                f"template {row.template_id}@{row.template_version} changed since the run "
                "started, so what it finished may not fit the steps it has now",
                "Run the template again (give a changed template a new version).",
            ),
        )
    return ResumePlan(template)


def not_resumable(run_id: str, why: str, hint: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.RUN_NOT_RESUMABLE,
        f"the process running this run stopped, and it cannot go on elsewhere: {why}",
        hint,
        {"runId": run_id},
    )
