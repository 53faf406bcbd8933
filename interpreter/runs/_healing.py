"""A run's healing wired to the run store: its healer made with the fingerprints earlier runs of
the template's version kept, what a succeeded run learned kept for the next, and what was healed
or suggested kept with the run (`repairs`: the list and the template's diff) and told in its
error's details.

The healer itself is interpreter/heal/'s; this module reads and writes the store only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from taskplate.contract import TaskplateError

from .._principal import space_of
from ..heal import Healer, Seen, narrowed, place_of
from ..store import Store
from ._wiring import RunJob, RunWiring


def healer_for(wiring: RunWiring, job: RunJob, sampler: Any) -> Healer | None:
    """The run's healer; None when its mode is off, for `dsl test`'s case runs (a case checks
    the template as written) and for a template without a source (run_steps)."""
    mode = narrowed(job.template.heal, job.options.get("heal"))
    if mode == "off" or wiring.probe is not None or wiring.models is not None:
        return None
    space = space_of(job.principal) if job.principal else None
    source = wiring.library.text(job.template, space)
    if source is None:
        return None
    return Healer(
        source,
        Path(job.template.source).name or f"{job.template.id}.yaml",
        mode,
        {},
        job.secrets,
        sampler=sampler,
        ask_model=job.template.heal_model,
    )


async def learn_before(store: Store, job: RunJob, healer: Healer | None) -> None:
    """The fingerprints earlier runs of this template version kept, given to the healer."""
    if healer is None:
        return
    kept = await store.fingerprints(job.template.id, job.template.version)
    healer.known = {place_of(key): Seen.from_json(seen) for key, seen in kept.items()}


async def keep_after(store: Store, job: RunJob, healer: Healer | None, succeeded: bool) -> None:
    """A succeeded run's fingerprints kept (bounded, without secrets); what it healed or
    suggested kept with the run."""
    if healer is None:
        return
    if succeeded:
        learned = healer.kept()
        if learned:
            await store.keep_fingerprints(job.template.id, job.template.version, learned)
    told = told_of(healer)
    if told is not None:
        await store.update_run(job.run_id, repairs=told)


def told_of(healer: Healer) -> dict[str, Any] | None:
    """What the run keeps of its healing: the repairs applied and their diff, else the ones
    suggested; None when nothing was found."""
    applied = healer.repairs(applied=True)
    if applied:
        return {"applied": True, "repairs": applied, "diff": healer.diff(applied=True)}
    suggested = healer.repairs(applied=False)
    if suggested:
        return {"applied": False, "repairs": suggested, "diff": healer.diff(applied=False)}
    return None


def with_suggestion(error: TaskplateError, healer: Healer | None) -> TaskplateError:
    """A failed run's error with the suggested repairs and diff in its details, or why none was
    suggested for a selector whose element was looked for."""
    if healer is None:
        return error
    suggested = healer.repairs(applied=False)
    details = dict(error.details or {})
    if suggested:
        details["repairs"] = suggested
        details["repairDiff"] = healer.diff(applied=False)
    if healer.unsure:
        details["unhealed"] = healer.unsure[:10]
    if details == (error.details or {}):
        return error
    hint = error.recover_hint
    if suggested and healer.mode == "suggest":
        hint = "A repair is suggested in details.repairDiff: apply it (dsl repair apply RUN_ID) or set heal: apply."
    return TaskplateError(error.code, error.message, hint, details)
