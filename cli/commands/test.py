"""`dsl test [PATH|ID …]`: a template's recorded cases run offline from their recordings (or live
with --live) and their expectations checked; a summary with a diff of each broken expectation,
or JSON, or JUnit XML. Exit 0 all passed, 1 some failed, 2 some could not run.
"""

from __future__ import annotations

import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import anyio
import click

from taskplate.contract import TaskplateError, write_whole
from taskplate.dsl import ENV_KEY, Case, Template, case_file_of, find_case_files, load_cases
from taskplate.interpreter import (
    CaseResult,
    Repair,
    RunManager,
    checked_template,
    preflight,
    run_case,
    suggest_repair,
)

from .._common import library_for, limits
from .._errors import user_errors
from .._help import examples

EXIT = {"passed": 0, "failed": 1, "error": 2}


def _select(paths: tuple[str, ...]) -> tuple[list[Case], list[CaseResult]]:
    """The cases named (files, folders, templates, or TEMPLATE/CASE ids), and a result for
    each case file that cannot be read."""
    wanted: dict[Path, set[str] | None] = {}
    for given in paths or (".",):
        path = Path(given)
        if not path.exists() and "/" in given:  # TEMPLATE/CASE: the template's file or name
            base, name = given.rsplit("/", 1)
            for file in _case_files_of(Path(base)):
                names = wanted.setdefault(file, set())
                if names is not None:
                    names.add(name)
            continue
        for file in find_case_files([path]):
            wanted[file] = None
    cases: list[Case] = []
    unreadable: list[CaseResult] = []
    for file, names in wanted.items():
        try:
            found = load_cases(file)
        except TaskplateError as exc:
            stand_in = Case(file, 1, file, file.name, {}, file, None, {})
            unreadable.append(CaseResult(stand_in, error=f"{exc.code}: {exc.message}"))
            continue
        cases += [c for c in found if names is None or c.name in names]
    return cases, unreadable


def _case_files_of(base: Path) -> list[Path]:
    """The case file of a template named by its file (items.yaml) or its name (items)."""
    for candidate in (
        base,
        base.with_name(base.name + ".yaml"),
        base.with_name(base.name + ".yml"),
    ):
        if candidate.is_file():
            return [case_file_of(candidate)]
    return find_case_files([base])


# a case's repair (`--suggest`), or why there is none
Suggestion = tuple[Case, Repair | str]


async def run_all(
    cases: list[Case], live: bool, suggest: bool = False
) -> tuple[list[CaseResult], list[Suggestion]]:
    """Every case run in turn, in a data home of their own (gone after); when one cannot run
    (a missing recording, an input its template lacks), none is. With `suggest`, a repair for
    the first failing case of each template."""
    with tempfile.TemporaryDirectory(prefix="taskplate-test-") as home:
        lib = library_for(*(c.template for c in cases))
        lib.offline = not live  # offline, every provider call is answered from a recording
        runs = RunManager(Path(home), lib, limits=limits())
        templates: dict[Path, Template] = {}  # each template checked once, for all its cases
        problems = []
        for case in cases:
            try:
                if case.template not in templates:
                    templates[case.template] = checked_template(runs, case.template)
                preflight(case, templates[case.template], live=live)
            except TaskplateError as exc:
                problems.append(CaseResult(case, error=f"{exc.code}: {exc.message}"))
        if problems:
            return problems, []
        suggestions: list[Suggestion] = []
        async with runs.running():
            results = [
                await run_case(runs, case, live=live, template=templates[case.template])
                for case in cases
            ]
            repaired: set[Path] = set()  # one repair per template: each is a diff of its source
            for r in results:
                if suggest and r.outcome == "failed" and r.case.template not in repaired:
                    repaired.add(r.case.template)
                    try:
                        found: Repair | str = await suggest_repair(
                            runs, r.case, templates[r.case.template]
                        )
                    except TaskplateError as exc:
                        found = f"{exc.code}: {exc.message}\nhint: {exc.recover_hint}"
                    suggestions.append((r.case, found))
        return results, suggestions


def _suggested(suggestions: list[Suggestion], fix: bool) -> str:
    """Each repair as a diff of its template (written with `fix`), or why there is none."""
    lines = []
    for case, found in suggestions:
        if isinstance(found, str):
            lines.append(f"no repair for {case.id}: {found}")
            continue
        places = ", ".join(f"line {s.line}" for s in found.changes)
        if found.reordered:
            lists = ", ".join(found.reordered)
            lines.append(
                f"suggested repair for {case.id} ({places}): with it the case reads every value "
                f"it recorded, the list{'s' * (len(found.reordered) > 1)} at {lists} in another "
                "order: the site reordered them, which no selector undoes; the case passes once "
                f"recorded again ({record_command(case)}):"
            )
        else:
            lines.append(
                f"suggested repair for {case.id} (the case passes live with it; {places}):"
            )
        lines.append(found.diff.rstrip("\n"))
        if fix:
            write_whole(case.template, found.after.encode("utf-8"))
            lines.append(f"written to {case.template}")
            lines.append(
                f"the offline case {case.id} is stale now: its recording holds the pages as they "
                "were, which the new selector may not match. Record it again (its expectations "
                f"are made again too):\n  {record_command(case)}"
            )
        else:
            lines.append("run again with --fix to write it")
    return "\n".join(lines)


def record_command(case: Case) -> str:
    """The `dsl record` command that records the case again, with its inputs as written (a
    secret read from its environment variable by the shell)."""
    words = [shlex.quote(w) for w in ("dsl", "record", str(case.template), "--name", case.name)]
    for key, value in case.inputs.items():
        if isinstance(value, dict) and set(value) == {ENV_KEY}:
            words += ["--input", f'{shlex.quote(key)}="${value[ENV_KEY]}"']
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        words += ["--input", shlex.quote(f"{key}={text}")]
    return " ".join(words)


def _summary(results: list[CaseResult], live: bool, suggest: bool = False) -> str:
    lines = []
    for r in results:
        mark = {"passed": "ok  ", "failed": "FAIL", "error": "ERR "}[r.outcome]
        lines.append(f"{mark} {r.case.id}  ({r.case.file}:{r.case.line}, {r.seconds:.1f} s)")
        if r.error:
            lines.append(f"     could not run: {r.error}")
        for b in r.broken:
            lines.append(f"     {b.what}:")
            lines += [f"       {line}" for line in b.detail.splitlines()]
        drift = r.drift_said
        if drift:
            lines.append("     drift from the recording:")
            lines += [f"       {line}" for text in drift for line in text.splitlines()]
        if live and not suggest and r.element_lost:
            lines.append(
                "     a selector found nothing on the live page: `dsl test --live --suggest` "
                "looks for the element it matched in the recording and suggests a selector"
            )
    counts = {o: sum(r.outcome == o for r in results) for o in EXIT}
    where = "live" if live else "offline"
    lines.append(
        f"{len(results)} case{'s' * (len(results) != 1)} run {where}: {counts['passed']} passed, "
        f"{counts['failed']} failed, {counts['error']} could not run"
    )
    return "\n".join(lines)


def _junit(results: list[CaseResult]) -> str:
    suite = ElementTree.Element(
        "testsuite",
        name="taskplate",
        tests=str(len(results)),
        failures=str(sum(r.outcome == "failed" for r in results)),
        errors=str(sum(r.outcome == "error" for r in results)),
        time=f"{sum(r.seconds for r in results):.3f}",
    )
    for r in results:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=r.case.template.stem,
            name=r.case.name,
            file=str(r.case.file),
            line=str(r.case.line),
            time=f"{r.seconds:.3f}",
        )
        if r.error:
            ElementTree.SubElement(case, "error", message=r.error).text = r.error
        elif r.broken:
            text = "\n".join(f"{b.what}:\n{b.detail}" for b in r.broken)
            message = "; ".join(b.what for b in r.broken)
            ElementTree.SubElement(case, "failure", message=message).text = text
    ElementTree.indent(suite)
    body: str = ElementTree.tostring(suite, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body


def report(results: list[CaseResult], fmt: str, live: bool, suggest: bool = False) -> str:
    if fmt == "json":
        data: dict[str, Any] = {
            "live": live,
            "cases": [r.as_json() for r in results],
            "passed": sum(r.outcome == "passed" for r in results),
            "failed": sum(r.outcome == "failed" for r in results),
            "errors": sum(r.outcome == "error" for r in results),
        }
        return json.dumps(data, indent=2, ensure_ascii=False)
    if fmt == "junit":
        return _junit(results)
    return _summary(results, live, suggest)


@click.command(
    "test",
    epilog=examples(
        "dsl test templates/            # every case under templates/, offline",
        "dsl test my_task.yaml --format junit > report.xml",
        "dsl test my_task/default --live",
        "dsl test my_task.yaml --live --suggest --fix",
    ),
)
@click.argument("paths", nargs=-1)
@click.option("--live", is_flag=True, help="Run against the live sites instead of the recordings.")
@click.option(
    "--suggest",
    is_flag=True,
    help="With --live: for a selector that stopped matching, suggest one as a diff.",
)
@click.option("--fix", is_flag=True, help="With --suggest: write the suggested change.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "junit"]),
    default="text",
    show_default=True,
    help="A readable summary, JSON, or JUnit XML for CI.",
)
@user_errors
def command(paths: tuple[str, ...], live: bool, suggest: bool, fix: bool, fmt: str) -> None:
    """Run recorded test cases, offline or live, and check them.

    PATHS are case files (NAME.test.yaml), templates (their case file), folders (every case
    file under them) or TEMPLATE/CASE; default: the current folder. Offline, every request is
    served from the case's recording and now() is the time it was recorded. With --live
    --suggest, a case that fails because a selector matches nothing now gets a new selector,
    checked by running the case live with it and shown as a diff; --fix writes it."""
    if fix and not suggest:
        raise click.UsageError("--fix writes what --suggest finds: give --live --suggest --fix")
    if suggest and not live:
        raise click.UsageError("--suggest compares the live pages with the recording: add --live")
    cases, results = _select(paths)
    if not cases and not results:
        click.echo("no test cases found (NAME.test.yaml beside a template)", err=True)
        sys.exit(2)
    suggestions: list[Suggestion] = []
    if not results:  # an unreadable case file: nothing runs
        results, suggestions = anyio.run(run_all, cases, live, suggest)
    click.echo(report(results, fmt, live, suggest))
    if suggestions:
        click.echo(_suggested(suggestions, fix), err=fmt != "text")
    sys.exit(max((EXIT[r.outcome] for r in results), default=0))
