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
    diagnostics = []
    for case in cases:
        template_text = case.template.read_text(encoding="utf-8")
        template = check_source(template_text, str(case.template), catalog_for(case.template))
        if template.template is None:
            message = f"its template {case.template.name} does not check (dsl validate it)"
            diagnostics.append(problem(case.line, message))
            continue
        schemas = (template.template.inputs_schema, template.template.outputs_schema)
        diagnostics += [problem(case.line, found) for found in static_problems(case, *schemas)]
    return CheckResult(str(path), None, diagnostics, text)
