"""What `dsl run` says of a run's healing on stderr (its JSON, on stdout, has it all): the
selectors it healed, or the repairs it suggests, and the template's diff; and its `--heal`.

Says only; the run manager heals (interpreter/heal/).
"""

from __future__ import annotations

from typing import Any

import click

from ._errors import report_failed

heal_option = click.option(
    "--heal",
    type=click.Choice(["off", "suggest", "apply"]),
    help="Narrow the template's heal: (apply → suggest → off; never wider): what the run does "
    "when a selector loses its element (docs/testing.md).",
)


def report_healing(answer: dict[str, Any]) -> None:
    """The run's repairs, applied or suggested, then its failure if it failed."""
    details = (answer.get("error") or {}).get("details") or {}
    applied = answer.get("repairs") or []
    suggested = answer.get("suggestedRepairs") or details.get("repairs") or []
    for repair, said in [(r, "healed") for r in applied] + [(r, "suggested") for r in suggested]:
        sure = f" (confidence {repair['confidence']})" if repair.get("confidence") else ""
        by = {"model": " (chosen by the model)", "list": " (the items the list lost)"}.get(
            repair.get("by") or "", ""
        )
        click.echo(
            f"{said}: step {repair['stepId']}, line {repair['line']}: "
            f"{repair['old']!r} → {repair['new']!r}{sure}{by}",
            err=True,
        )
    diff = answer.get("repairDiff") or details.get("repairDiff")
    if diff:
        click.echo(diff.rstrip("\n"), err=True)
    report_failed(answer)
