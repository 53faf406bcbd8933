"""`type`: every value has the type its place wants, as far as the template tells.

Expression operands are `_expr_infer`'s (named for this rule in its problems); here: numbers,
`forEach` lists, expression arguments against the action's schema, `output` against `outputs`.
"""

from __future__ import annotations

from typing import Any

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._model import Step
from .._schema_errors import kinds_text
from .._types import ANY, Type, fits
from .._values import Interp, MapValue, Single
from .._yaml import escape_pointer
from ..expr import suggest


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    for name, number in types.numbers.items():
        if number.kind not in ("number", "any", "null"):
            report(f"{name} must be a number, got {number.kind}", f"{step.pointer}/{name}")
    if step.is_loop and types.items.kind not in ("array", "any", "null"):
        report(f"forEach needs a list, got {types.items.describe()}", f"{step.pointer}/forEach")
    spec = types.spec
    if spec is None or not isinstance(step.args, MapValue):  # a Single is typed as a whole
        return
    pointer = f"{step.pointer}/with"
    props = spec.args_schema.get("properties", {})
    for name, value in step.args.entries:
        if isinstance(value, Single | Interp) and name in props:
            value_type = types.args.props.get(name, ANY)
            where = f"{pointer}/{escape_pointer(name)}"
            _fits(f'argument "{name}" of {spec.name}', value_type, props[name], where, report)


def _on_template(ctx: Context, report: Report) -> None:
    report.expr_problems(ctx)
    schema, output = ctx.template.outputs_schema, ctx.template.output
    if not isinstance(schema, dict) or not isinstance(output, MapValue):
        return
    if ctx.schema_errors.get("outputs"):
        return  # reported as json-schema; its keywords mean nothing to check against
    given = dict(output.entries)
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if name not in given:
            report(f'output has no "{name}", which outputs requires', "/output", key=True)
    props = schema.get("properties", {}) if isinstance(schema.get("properties"), dict) else {}
    for name in given:
        where = f"/output/{escape_pointer(name)}"
        if name in props:
            _fits(
                f'output "{name}"', ctx.output_type.props.get(name, ANY), props[name], where, report
            )
        elif schema.get("additionalProperties") is False:
            report(
                f'output "{name}" is not declared in outputs{suggest(name, props)}', where, key=True
            )


def _fits(what: str, value_type: Type, schema: Any, pointer: str, report: Report) -> None:
    if not fits(value_type, schema):
        want = kinds_text(schema.get("type"))
        report(f"{what} must be {want}, but the expression gives {value_type.describe()}", pointer)


RULE = Rule(
    "type",
    Severity.ERROR,
    "`forEach` over a non-list; an unknown property of a step result (`llm_extract`'s `data` "
    "is typed by its `schema`); operands or arguments of the wrong type; `output` not matching "
    "`outputs`",
    on_step=_on_step,
    on_template=_on_template,
)
