"""`dsl graph FILE`: a template's step graph as a tree, for authors to see what will run.

Reads the checked step graph; refuses templates with errors.
"""

from __future__ import annotations

import json
import sys

import click

from taskplate.dsl import (
    CheckResult,
    Const,
    Interp,
    ListValue,
    MapValue,
    Single,
    Step,
    Template,
    Value,
    format_text,
)
from taskplate.stdlib import REGISTRY

from .._help import examples
from .validate import check_paths


def show(value: Value | None) -> str:
    match value:
        case None:
            return ""
        case Const(value=v):
            return v if isinstance(v, str) else json.dumps(v)
        case Single(expr=expr):
            return "${{ " + expr.source.strip() + " }}"
        case Interp():
            return '"…${{ }}…"'
        case ListValue(items=items):
            return f"[{len(items)} items]"
        case MapValue(entries=entries):
            return "{" + ", ".join(k for k, _ in entries) + "}"
    return "?"


def _step_line(step: Step) -> str:
    name = f"{step.id}: " if step.id else ""
    if step.is_loop:
        text = f"{name}forEach {show(step.for_each)} as {step.var}"
        extras = [f"concurrency {show(step.concurrency)}"] if step.concurrency else []
        if step.tab is not None:
            extras.append(f"tab {show(step.tab)}")
        if step.enqueue is not None:
            extras.append(f"grows by enqueue up to maxItems {show(step.max_items)}")
        if step.unique_by is not None:
            extras.append(f"once by {show(step.unique_by)}")
    elif step.is_group:
        text, extras = f"{name}group of {len(step.steps)} steps", []
    else:
        spec = REGISTRY.get(step.action or "")
        level = f" [{spec.level}]" if spec else ""
        text = f"{name}{step.action}{level}"
        extras = []
    if step.needs:
        extras.append(f"needs {', '.join(step.needs)}")
    if step.when is not None:
        extras.append(f"when {show(step.when)}")
    if step.retry.attempts > 1:
        extras.append(f"retry {step.retry.attempts}× every {step.retry.backoff_ms} ms")
    if step.on_error:
        extras.append(f"onError {step.on_error}")
    return text + (f" ({'; '.join(extras)})" if extras else "")


def _tree(steps: list[Step], prefix: str, collect: Value | None = None) -> list[str]:
    lines = []
    rows: list[tuple[str, Step | None]] = [(_step_line(s), s) for s in steps]
    if collect is not None:
        rows.append((f"collect {show(collect)}", None))
    for i, (text, step) in enumerate(rows):
        last = i == len(rows) - 1
        lines.append(f"{prefix}{'└─ ' if last else '├─ '}{text}")
        if step is not None and step.steps:
            lines.extend(_tree(step.steps, prefix + ("   " if last else "│  "), step.collect))
    return lines


def render_graph(template: Template) -> str:
    ps = template.partial_success
    limits = template.limits
    facts = [f"trust: {', '.join(template.trust)}"]
    if ps.allowed:
        facts.append(f"partial success at ≥ {ps.threshold if ps.threshold is not None else 0.5}")
    limit_text = ", ".join(
        f"{k} {v}"
        for k, v in (
            ("maxItems", limits.max_items),
            ("maxConcurrency", limits.max_concurrency),
            ("maxTimeoutMs", limits.max_timeout_ms),
        )
        if v is not None
    )
    if limit_text:
        facts.append(f"limits: {limit_text}")
    lines = [
        f"{template.id} {template.version}" + (f" — {template.name}" if template.name else ""),
        " · ".join(facts),
    ]
    lines.extend(_tree(template.steps, ""))
    if template.output is not None:
        lines.append(f"output {show(template.output)}")
    return "\n".join(lines)


@click.command("graph", epilog=examples("dsl graph templates/batch_extract_pages.yaml"))
@click.argument("path")
def command(path: str) -> None:
    """Print a template's step graph as a tree."""
    results, failures = check_paths((path,))
    if failures:
        click.echo(f"error: {failures[0]}", err=True)
        sys.exit(2)
    result: CheckResult = results[0]
    if not result.ok or result.template is None:
        for d in result.diagnostics:
            click.echo(format_text(d, result.source), err=True)
        sys.exit(1)
    click.echo(render_graph(result.template))
