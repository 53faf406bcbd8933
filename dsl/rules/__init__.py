"""The static rules of `dsl validate`, one module each, as actionlint keeps them.

Each module declares `RULE` (its id, severity, docs and hooks, `Rule`); `REGISTRY` lists them
in docs/validate.md's order, which is also the order they run in at each point of the pass.
"""

from __future__ import annotations

from .._check_context import Rule
from . import (
    action_args,
    browser_identity,
    css_selector,
    cycle,
    duplicate_id,
    enqueue,
    enqueue_bound,
    enqueue_type,
    expr_syntax,
    json_schema,
    limits,
    partial_success,
    provider_lock,
    ref_order,
    shared_tab,
    template_schema,
    trust,
    type,
    unknown_action,
    unknown_ref,
    unused_input,
    unused_step,
    yaml_syntax,
)

REGISTRY: tuple[Rule, ...] = (
    yaml_syntax.RULE,
    template_schema.RULE,
    json_schema.RULE,
    expr_syntax.RULE,
    unknown_action.RULE,
    action_args.RULE,
    css_selector.RULE,
    unknown_ref.RULE,
    ref_order.RULE,
    duplicate_id.RULE,
    cycle.RULE,
    type.RULE,
    trust.RULE,
    limits.RULE,
    browser_identity.RULE,
    enqueue.RULE,
    enqueue_type.RULE,
    enqueue_bound.RULE,
    shared_tab.RULE,
    partial_success.RULE,
    provider_lock.RULE,
    unused_input.RULE,
    unused_step.RULE,
)


def docs_table() -> str:
    """The rules as docs/validate.md lists them (a test compares the two)."""
    rows = ["| rule | severity | what it finds |", "| --- | --- | --- |"]
    rows += [f"| `{r.name}` | {r.severity} | {r.docs} |" for r in REGISTRY]
    return "\n".join(rows)


__all__ = ["REGISTRY", "Rule", "docs_table"]
