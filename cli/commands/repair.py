"""`dsl repair apply RUN_ID` or `dsl repair apply --from-test TEMPLATE`: a repair of a template's
selectors (a run's, or one `dsl test --live --suggest` finds for a failing case) written into the
template file, only once the template's test cases pass live with it.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import click

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.dsl import case_file_of, load_cases
from taskplate.interpreter import (
    Applied,
    Patch,
    Repair,
    apply_in_scratch,
    apply_run_repair,
)

from .._common import library_for, limits, manager
from .._errors import user_errors
from .._help import examples
from .._store_option import store_option
from .test import record_command, run_all


@click.group(
    "repair", epilog=examples("dsl repair apply RUN_ID", "dsl repair apply --from-test shop.yaml")
)
def group() -> None:
    """Write a repair of a template's selectors into its file."""


async def _of_run(run_id: str, file: str | None) -> Applied:
    """The repair the run found, applied to its template's file."""
    async with manager() as runs:
        return await apply_run_repair(runs, run_id, file)


async def _of_test(path: Path) -> Patch:
    """The repair `dsl test --live --suggest` finds for the template's first failing case."""
    file = case_file_of(path)
    if not file.is_file():
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{path} has no test cases ({file.name})",
            "Record one with `dsl record`, or apply a run's repair: dsl repair apply RUN_ID.",
        )
    results, suggestions = await run_all(load_cases(file), True, True)
    problems = [r.error for r in results if r.error]
    if problems:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{path}: a case cannot run: {problems[0]}",
            "Run `dsl test` on it.",
        )
    if not suggestions:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{path}: every case passes live: there is nothing to repair",
            "Nothing to do.",
        )
    case, found = suggestions[0]
    if not isinstance(found, Repair):
        message, _, hint = found.partition("\nhint: ")
        raise TaskplateError(
            ErrorCode.ELEMENT_NOT_FOUND, f"no repair for {case.id}: {message}", hint
        )
    if found.reordered:
        raise TaskplateError(
            ErrorCode.ELEMENT_NOT_FOUND,
            f"the repair for {case.id} reads the list at {', '.join(found.reordered)} in the "
            "site's new order: no selector makes the case pass as recorded",
            "Write it with `dsl test --live --suggest --fix`, then record the case again "
            f"({record_command(case)}).",
        )
    return Patch(case.template, found.diff)


@group.command(
    "apply",
    epilog=examples("dsl repair apply RUN_ID", "dsl repair apply --from-test shop.yaml"),
)
@click.argument("run_id", required=False)
@click.option(
    "--from-test",
    "template",
    metavar="TEMPLATE",
    help="Find the repair as `dsl test TEMPLATE --live --suggest` does, instead of a run's.",
)
@click.option(
    "--file",
    metavar="FILE",
    help="With RUN_ID: the run's template file, when it is not among the served templates "
    "(a run of `dsl run FILE`).",
)
@store_option
@user_errors
def apply(run_id: str | None, template: str | None, file: str | None) -> None:
    """Write a repair into its template once its cases pass.

    RUN_ID: the repair a run found (its repairDiff). --from-test TEMPLATE: the one found for
    the template's first case that fails live. The template's cases are run live with the
    repair first; when one fails, nothing is written (exit 1). The file is replaced whole."""
    if (run_id is None) == (template is None):
        raise click.UsageError("give a RUN_ID or --from-test TEMPLATE (one of them)")
    if file is not None and run_id is None:
        raise click.UsageError("--file names the template file of a run: give its RUN_ID")
    if run_id is not None:
        _said(anyio.run(_of_run, run_id, file))
        return
    if template is not None:
        path = Path(template)
        if path.suffix not in (".yaml", ".yml") or not path.is_file():
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"{template} is not a template file",
                "Give the path of a .yaml template with test cases beside it.",
            )
        patch = anyio.run(_of_test, path)
        _said(anyio.run(apply_in_scratch, patch, library_for(patch.template), limits()))


def _said(done: Applied) -> None:
    """What was written, and how to record the cases again (their recordings are stale)."""
    click.echo(done.diff.rstrip("\n"))
    checked = ", ".join(done.cases) or "none: the template has no test cases"
    click.echo(f"written to {done.template} (cases passed live with it: {checked})")
    file = case_file_of(done.template)
    if file.is_file():
        cases = load_cases(file)
        click.echo(
            "the offline cases are stale now: their recordings hold the pages as they were, "
            "which the new selector may not match. Record them again:"
        )
        for case in cases:
            click.echo(f"  {record_command(case)}")
