"""The `extract` action: named values read from the page by selectors, typed when asked.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taskplate.browser import translate
from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec, parse_number

from ._schemas import args, result

if TYPE_CHECKING:
    from taskplate.stdlib._context import ActionContext

# url fields are resolved in the page, against document.baseURI (which honours <base href>).
_EXTRACT = """([root, fields]) => {
  const base = root ? document.querySelector(root) : document;
  if (!base) return null;
  const absolute = (v) => { try { return new URL(v, document.baseURI).href; } catch { return null; } };
  const read = (el, f) => {
    if (f.type === 'boolean') return f.attr ? el.hasAttribute(f.attr) && el.getAttribute(f.attr) !== 'false' : true;
    const v = f.attr ? el.getAttribute(f.attr) : (el.innerText ?? el.textContent ?? '').trim();
    return v !== null && f.type === 'url' ? absolute(v.trim()) : v;
  };
  const out = {};
  for (const [name, f] of Object.entries(fields)) {
    if (f.all) { out[name] = Array.from(base.querySelectorAll(f.selector)).map(el => read(el, f)); }
    else { const el = base.querySelector(f.selector); out[name] = el ? read(el, f) : (f.type === 'boolean' ? false : null); }
  }
  return out;
}"""

TYPES = ("string", "number", "integer", "boolean", "url")

_FIELD_MAP = {
    "type": "object",
    "additionalProperties": False,
    "required": ["selector"],
    "properties": {
        "selector": {"type": "string", "minLength": 1},
        "attr": {
            "type": "string",
            "minLength": 1,
            "description": "An attribute instead of the text.",
        },
        "all": {"type": "boolean", "default": False, "description": "Every match as a list."},
        "type": {
            "enum": list(TYPES),
            "default": "string",
            "description": "string as written; number and integer read as toNumber() does "
            "(`$1,299.00` → 1299.0, null when there is no number); boolean: whether an element "
            "matches (with attr: has the attribute, not set to false); url: made absolute.",
        },
    },
}
# A bare string is shorthand for {selector: the string}.
FIELD = {
    "anyOf": [{"type": "string", "minLength": 1}, _FIELD_MAP],
    "x-hint": "a selector or {selector, attr, all, type}",
}
_VALUE_SCHEMA: dict[str, dict[str, Any]] = {
    "string": {"type": ["string", "null"]},
    "number": {"type": ["number", "null"]},
    "integer": {"type": ["integer", "null"]},
    "boolean": {"type": "boolean"},
    "url": {"type": ["string", "null"]},
}


def _typed(value: Any, kind: str) -> Any:
    if not isinstance(value, str) or kind not in ("number", "integer"):
        return value
    number = parse_number(value)
    if kind == "integer":
        whole = number is not None and float(number).is_integer()
        return int(number) if whole and number is not None else None
    return number


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    page = await ctx.page()
    fields = {k: {"selector": v} if isinstance(v, str) else v for k, v in args["fields"].items()}
    root = args.get("root")
    try:
        values = await page.evaluate(_EXTRACT, [root, fields])
    except Exception as exc:
        if "is not a valid selector" in str(exc):
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"a selector is not valid CSS: {str(exc).splitlines()[0]}",
                "Fix the selector.",
            ) from None
        raise translate(
            exc, doing="extracting fields", timeout_code=ErrorCode.EXECUTION_ERROR
        ) from None
    if values is None:
        raise TaskplateError(
            ErrorCode.ELEMENT_NOT_FOUND,
            f'root "{root}" matches no element',
            "Check the root selector.",
        )
    for name, field in fields.items():
        kind = field.get("type", "string")
        value = values[name]
        values[name] = [_typed(v, kind) for v in value] if field.get("all") else _typed(value, kind)
    missing = [k for k, v in values.items() if v is None or v == []]
    return {"values": values, "missing": missing}


def result_schema_for(args_given: dict[str, Any]) -> dict[str, Any]:
    """The result with `values` typed field by field, when the fields are written out."""
    fields = args_given.get("fields")
    if not isinstance(fields, dict):
        return RESULT
    properties = {}
    for name, field in fields.items():
        kind = field.get("type", "string") if isinstance(field, dict) else "string"
        known = isinstance(field, str | dict) and isinstance(kind, str)  # not an expression
        value = _VALUE_SCHEMA.get(kind, {}) if known else {}
        many = isinstance(field, dict) and field.get("all") is True
        properties[name] = {"type": "array", "items": value} if many else value
    values = {"type": "object", "properties": properties, "additionalProperties": False}
    return result({"values": values, "missing": RESULT["properties"]["missing"]})


RESULT = result(
    {"values": {"type": "object"}, "missing": {"type": "array", "items": {"type": "string"}}}
)

ACTION = ActionSpec(
    name="extract",
    level=Level.L0,
    summary="Read named fields (text or an attribute, one or all matches) under an optional "
    "root, typed as string, number, integer, boolean or absolute url.",
    args_schema=args(
        {
            "root": {
                "type": "string",
                "minLength": 1,
                "description": "Only look inside this element.",
            },
            "fields": {"type": "object", "minProperties": 1, "additionalProperties": FIELD},
        },
        ["fields"],
    ),
    result_schema=RESULT,
    pure=True,
    run=run,
    result_schema_for=result_schema_for,
)
