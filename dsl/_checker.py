"""Static checks of a template (SPEC §3): every rule of `dsl/rules/`, every problem of a file
in one pass. Pure: reads YAML text and an action catalog, returns the step graph and diagnostics.

The pass: the YAML with positions; the meta-schema, misspelt keys read as their one suggestion
(`_check_recovery.py`); the step graph; each rule's `on_graph`; one scope walk typing every
value (`_check_types.py`), each step handed to the rules' `on_step`; each rule's `on_template`.
"""

from __future__ import annotations

from pathlib import Path

from taskplate.contract import lazy_dataclass

from ._actions import ActionCatalog
from ._check_context import Context, Diagnostics, Report, StepTypes
from ._check_recovery import note_mentions, read_as_meant
from ._check_types import ScopeWalk
from ._diagnostics import Diagnostic, Severity
from ._model import Step, Template, build_template
from ._types import schema_of
from ._yaml import LoadedYaml, YamlError, load_yaml
from .expr import hint_budget
from .rules import REGISTRY, template_schema, yaml_syntax


@lazy_dataclass
class CheckResult:
    file: str
    template: Template | None
    diagnostics: list[Diagnostic]
    source: str = ""

    @property
    def ok(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)


def check_source(text: str, file: str, catalog: ActionCatalog) -> CheckResult:
    """Check one template's YAML text; never raises on bad input."""
    try:
        loaded = load_yaml(text)
    except YamlError as exc:
        diag = Diagnostic(file, exc.span, Severity.ERROR, yaml_syntax.RULE.name, exc.message)
        return CheckResult(file, None, [diag], text)
    diagnostics = Diagnostics(file, loaded)
    with hint_budget():  # did-you-mean hints, in the order rules ask, share one budget
        template = _check(file, loaded, catalog, diagnostics)
    unique = {(d.span, d.rule, d.message): d for d in diagnostics.found}
    return CheckResult(file, template, sorted(unique.values(), key=Diagnostic.sort_key), text)


def check_file(path: Path, catalog: ActionCatalog, display: str | None = None) -> CheckResult:
    """Check one file; raises OSError/UnicodeDecodeError when it cannot be read."""
    text = path.read_text(encoding="utf-8")
    return check_source(text, display or str(path), catalog)


def _check(
    file: str, loaded: LoadedYaml, catalog: ActionCatalog, diagnostics: Diagnostics
) -> Template | None:
    reports = {rule.name: Report(diagnostics, rule) for rule in REGISTRY}
    raw = loaded.data
    if not isinstance(raw, dict):
        got = "an empty file" if raw is None else f"a {type(raw).__name__}"
        reports[template_schema.RULE.name](f"a template must be a YAML map of keys, got {got}", "")
        return None
    used_inputs: set[str] = set()
    used_steps: set[str] = set()
    schema_report = reports[template_schema.RULE.name]
    raw = read_as_meant(raw, schema_report, diagnostics, used_inputs, used_steps)
    template, bad = build_template(raw, file)
    ctx = Context(file, loaded, raw, catalog, template, bad, used_inputs, used_steps)
    for b in bad:
        note_mentions(ctx.node(b.pointer), ctx.used_inputs, ctx.used_steps)
    for rule in REGISTRY:
        if rule.on_graph is not None:
            rule.on_graph(ctx, reports[rule.name])
    step_hooks = [(r.on_step, reports[r.name]) for r in REGISTRY if r.on_step is not None]

    def on_step(step: Step, types: StepTypes) -> None:
        for hook, report in step_hooks:
            hook(ctx, report, step, types)

    ScopeWalk(ctx, on_step).run()
    if template.output is not None:
        template.inferred_outputs = schema_of(ctx.output_type)
    for rule in REGISTRY:
        if rule.on_template is not None:
            rule.on_template(ctx, reports[rule.name])
    return template
