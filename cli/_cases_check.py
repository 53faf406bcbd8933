"""Test case files (NAME.test.yaml) checked without running them, for `dsl validate` and the
language server alike: the file's keys (did you mean), the inputs and outputs its template
declares, its recordings. The case reader loads only when a case file is met.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from taskplate.dsl import ActionCatalog, CheckResult, Diagnostic, Severity, Span, check_source

CASE_SUFFIXES = (".test.yaml", ".test.yml")


def check_cases(path: Path, text: str, catalog_for: Callable[[Path], ActionCatalog]) -> CheckResult:
    """The diagnostics of one case file's `text` (rule `test-case`), one per problem."""
    from taskplate.contract import TaskplateError
    from taskplate.dsl import load_cases, static_problems

    def problem(line: int, message: str) -> Diagnostic:
        return Diagnostic(str(path), Span(line, 1, line, 2), Severity.ERROR, "test-case", message)

    try:
        cases = load_cases(path, text)
    except TaskplateError as exc:
        found = exc.details.get("problem", exc.message)
        return CheckResult(str(path), None, [problem(exc.details.get("line", 1), found)], text)
    template_file = cases[0].template  # the file's one template, checked once
    checked = check_source(
        template_file.read_text(encoding="utf-8"), str(template_file), catalog_for(template_file)
    ).template
    if checked is None:
        message = f"its template {template_file.name} does not check (dsl validate it)"
        return CheckResult(str(path), None, [problem(c.line, message) for c in cases], text)
    loops = [s.path for s in checked.all_steps() if s.is_loop]
    schemas = (checked.inputs_schema, checked.outputs_schema)
    diagnostics = [
        problem(c.line, found) for c in cases for found in static_problems(c, *schemas, loops)
    ]
    return CheckResult(str(path), None, diagnostics, text)
