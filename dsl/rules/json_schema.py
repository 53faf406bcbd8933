"""`json-schema`: `inputs`, `outputs` and schema-valued arguments are valid JSON Schema 2020-12.

Reads the raw template and each action step's literal arguments; reports at the bad keyword.
"""

from __future__ import annotations

from typing import Any

from .._check_context import Context, Report, Rule, StepTypes
from .._diagnostics import Severity
from .._json_schema_check import schema_errors
from .._model import Step
from .._schema_errors import pointer_of
from .._values import DYNAMIC
from .._yaml import escape_pointer


def _on_graph(ctx: Context, report: Report) -> None:
    for key in ("inputs", "outputs"):
        schema = ctx.raw.get(key)
        if not isinstance(schema, dict):
            continue
        for error in ctx.schema_errors[key]:
            pointer = f"/{key}{pointer_of(error.absolute_path)}"
            report(f"{key} is not a valid JSON Schema: {error.message}", pointer)
        if schema.get("type", "object") != "object":
            report(
                f"{key} must describe a map (type: object), got type {schema.get('type')!r}",
                f"/{key}/type",
            )


def _on_step(ctx: Context, report: Report, step: Step, types: StepTypes) -> None:
    """Arguments that are JSON Schemas themselves (`x-json-schema`, llm_extract's `schema`)
    are checked against the 2020-12 meta-schema when written out."""
    spec, args = types.spec, types.literal_args
    if spec is None or not isinstance(args, dict):
        return
    for name, prop in spec.args_schema.get("properties", {}).items():
        value = args.get(name)
        if not (isinstance(prop, dict) and prop.get("x-json-schema")) or _dynamic(value):
            continue
        for error in schema_errors(value):
            where = f"{step.pointer}/with/{escape_pointer(name)}{pointer_of(error.absolute_path)}"
            report(
                f'argument "{name}" of {spec.name} is not a valid JSON Schema: {error.message}',
                where,
            )


def _dynamic(value: Any) -> bool:
    """Whether a literal holds a value only an expression computes (or is missing)."""
    if value is DYNAMIC or value is None:
        return True
    if isinstance(value, dict):
        return any(_dynamic(v) for v in value.values() if v is not None)
    if isinstance(value, list):
        return any(_dynamic(v) for v in value if v is not None)
    return False


RULE = Rule(
    "json-schema",
    Severity.ERROR,
    "`inputs`/`outputs` that are not valid JSON Schema 2020-12 or do not describe a map; an "
    "action argument that is a JSON Schema itself (`llm_extract`'s `schema`) and is not valid "
    "2020-12, pointing at the bad keyword",
    on_graph=_on_graph,
    on_step=_on_step,
)
