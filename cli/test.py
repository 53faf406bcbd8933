"""`dsl test [PATH|ID …]`: a template's recorded cases run offline from their recordings (or live
with --live) and their expectations checked; a summary with a diff of each broken expectation,
or JSON, or JUnit XML. Exit 0 all passed, 1 some failed, 2 some could not run.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import anyio
import click

from taskplate.contract import TaskplateError
from taskplate.dsl import Case, Template, case_file_of, find_case_files, load_cases
from taskplate.interpreter import (
    CaseResult,
    RunManager,
    checked_template,
    preflight,
    run_case,
)

from ._common import library_for, limits
from ._errors import user_errors
from ._help import examples

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


async def _run_all(cases: list[Case], live: bool) -> list[CaseResult]:
    """Every case run in turn, in a data home of their own (gone after); when one cannot run
    (a missing recording, an input its template lacks), none is."""
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
            return problems
        async with runs.running():
            return [
                await run_case(runs, case, live=live, template=templates[case.template])
                for case in cases
            ]


def _summary(results: list[CaseResult], live: bool) -> str:
    lines = []
    for r in results:
        mark = {"passed": "ok  ", "failed": "FAIL", "error": "ERR "}[r.outcome]
        lines.append(f"{mark} {r.case.id}  ({r.case.file}:{r.case.line}, {r.seconds:.1f} s)")
        if r.error:
            lines.append(f"     could not run: {r.error}")
        for b in r.broken:
            lines.append(f"     {b.what}:")
            lines += [f"       {line}" for line in b.detail.splitlines()]
        if r.drift:
            lines.append("     drift from the recording:")
            lines += [f"       {line}" for text in r.drift for line in text.splitlines()]
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


def report(results: list[CaseResult], fmt: str, live: bool) -> str:
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
    return _summary(results, live)


@click.command(
    "test",
    epilog=examples(
        "dsl test templates/            # every case under templates/, offline",
        "dsl test my_task.yaml --format junit > report.xml",
        "dsl test my_task/default --live",
    ),
)
@click.argument("paths", nargs=-1)
@click.option("--live", is_flag=True, help="Run against the live sites instead of the recordings.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "junit"]),
    default="text",
    show_default=True,
    help="A readable summary, JSON, or JUnit XML for CI.",
)
@user_errors
def command(paths: tuple[str, ...], live: bool, fmt: str) -> None:
    """Run recorded test cases, offline or live, and check them.

    PATHS are case files (NAME.test.yaml), templates (their case file), folders (every case
    file under them) or TEMPLATE/CASE; default: the current folder. Offline, every request is
    served from the case's recording and now() is the time it was recorded."""
    cases, results = _select(paths)
    if not cases and not results:
        click.echo("no test cases found (NAME.test.yaml beside a template)", err=True)
        sys.exit(2)
    if not results:  # an unreadable case file: nothing runs
        results = anyio.run(_run_all, cases, live)
    click.echo(report(results, fmt, live))
    sys.exit(max((EXIT[r.outcome] for r in results), default=0))
