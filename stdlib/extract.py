"""The `extract` action: named values read from the page by selectors.

Declaration and implementation; page access goes through the browser runtime.
"""

from typing import Any

from taskplate.browser import translate
from taskplate.dsl import ActionSpec, ErrorCode, Level, TaskplateError
from taskplate.stdlib._context import ActionContext

from ._schemas import args, result

_EXTRACT = """([root, fields]) => {
  const base = root ? document.querySelector(root) : document;
  if (!base) return null;
  const read = (el, attr) => attr ? el.getAttribute(attr) : (el.innerText ?? el.textContent ?? '').trim();
  const out = {};
  for (const [name, f] of Object.entries(fields)) {
    if (f.all) { out[name] = Array.from(base.querySelectorAll(f.selector)).map(el => read(el, f.attr)); }
    else { const el = base.querySelector(f.selector); out[name] = el ? read(el, f.attr) : null; }
  }
  return out;
}"""

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
    },
}
# A bare string is shorthand for {selector: the string}.
FIELD = {
    "anyOf": [{"type": "string", "minLength": 1}, _FIELD_MAP],
    "x-hint": "a selector or {selector, attr, all}",
}


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
    missing = [k for k, v in values.items() if v is None or v == []]
    return {"values": values, "missing": missing}


ACTION = ActionSpec(
    name="extract",
    level=Level.L0,
    summary="Read named fields (text or an attribute, one or all matches) under an optional root.",
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
    result_schema=result(
        {"values": {"type": "object"}, "missing": {"type": "array", "items": {"type": "string"}}}
    ),
    pure=True,
    run=run,
)
