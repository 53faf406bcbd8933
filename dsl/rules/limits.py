"""`limits`: what a template asks stays within its own `limits` and the runtime's.

Constants only: a value an expression computes is bounded at run time.
"""

from __future__ import annotations

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._metaschema import MAX_RUN_TIMEOUT_MS, MAX_TABS_PER_SESSION
from .._model import Step
from .._values import Const
from .._yaml import escape_pointer


def _on_graph(ctx: Context, report: Report) -> None:
    limits = ctx.template.limits
    if limits.max_concurrency and limits.max_concurrency > MAX_TABS_PER_SESSION:
        report(
            f"limits.maxConcurrency {limits.max_concurrency} is above the {MAX_TABS_PER_SESSION} tabs a session may have",
            "/limits/maxConcurrency",
        )
    if limits.max_timeout_ms and limits.max_timeout_ms > MAX_RUN_TIMEOUT_MS:
        report(
            f"limits.maxTimeoutMs {limits.max_timeout_ms} is above the runtime's maximum ({MAX_RUN_TIMEOUT_MS} ms)",
            "/limits/maxTimeoutMs",
        )
    if limits.max_timeout_ms:
        for step in ctx.steps:
            t = step.timeout_ms.value if isinstance(step.timeout_ms, Const) else None
            if isinstance(t, int) and t > limits.max_timeout_ms:
                report(
                    f"timeoutMs {t} is above limits.maxTimeoutMs ({limits.max_timeout_ms})",
                    f"{step.pointer}/timeoutMs",
                )
    props = ctx.template.inputs_schema.get("properties")
    if limits.max_items and isinstance(props, dict):
        for name, schema in props.items():
            most = schema.get("maxItems") if isinstance(schema, dict) else None
            if isinstance(most, int) and most > limits.max_items:
                report(
                    f'input "{name}" allows {most} items, above limits.maxItems ({limits.max_items})',
                    f"/inputs/properties/{escape_pointer(name)}/maxItems",
                )


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    if not step.is_loop:
        return
    limits = ctx.template.limits
    concurrency = step.concurrency.value if isinstance(step.concurrency, Const) else None
    if (
        isinstance(concurrency, int)
        and limits.max_concurrency
        and concurrency > limits.max_concurrency
    ):
        report(
            f"concurrency {concurrency} is above limits.maxConcurrency ({limits.max_concurrency})",
            f"{step.pointer}/concurrency",
        )
    items = step.for_each.value if isinstance(step.for_each, Const) else None
    if isinstance(items, list) and limits.max_items and len(items) > limits.max_items:
        report(
            f"forEach lists {len(items)} items, above limits.maxItems ({limits.max_items})",
            f"{step.pointer}/forEach",
        )
    if step.enqueue is not None:  # maxItems bounds only a growing forEach
        most = step.max_items.value if isinstance(step.max_items, Const) else None
        if isinstance(most, int) and limits.max_items and most > limits.max_items:
            report(
                f"maxItems {most} is above limits.maxItems ({limits.max_items})",
                f"{step.pointer}/maxItems",
            )


RULE = Rule(
    "limits",
    Severity.ERROR,
    "`concurrency`, `timeoutMs` or input list sizes above the template's `limits`; limits above "
    "the runtime's (20 tabs per session, 900,000 ms)",
    on_graph=_on_graph,
    on_step=_on_step,
)
