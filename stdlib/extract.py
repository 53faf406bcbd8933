"""The `extract` action: named values read from the page by selectors, typed when asked; a
field with `fields` of its own reads a record per match. Waits for its fields as locators do.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, Level, TaskplateError
from taskplate.dsl import ActionSpec, parse_number

from ._elements import DEFAULT_TIMEOUT_MS
from ._extract_fields import DEFS, EXTRACT, shaped
from ._extract_lists import DEFAULT_QUIET_MS, has_lists, steady, with_watch
from ._extract_missing import not_in_records, record_paths, unmatched
from ._schemas import TIMEOUT_MS, args, css_selector, result

if TYPE_CHECKING:
    from taskplate.stdlib._context import ActionContext

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


def _typed_field(value: Any, field: dict[str, Any]) -> Any:
    """A field's value as read, typed: each value of a list, each field of a record."""
    if field.get("all") and isinstance(value, list):
        return [_typed_one(v, field) for v in value]
    return _typed_one(value, field)


def _typed_one(value: Any, field: dict[str, Any]) -> Any:
    inner = field.get("fields")
    if isinstance(inner, dict):
        if not isinstance(value, dict):
            return None
        return {name: _typed_field(value.get(name), f) for name, f in inner.items()}
    return _typed(value, field.get("type", "string"))


def check_args(given: dict[str, Any]) -> list[tuple[str, str]]:
    """What the schema cannot say: `required` names fields that are there (a records' field
    by its path, `products[].price`), and is not given beside `optional: true` (which never
    waits or fails)."""
    fields, required = given.get("fields"), given.get("required")
    if not isinstance(fields, dict) or not isinstance(required, list):
        return []
    known = {*fields, *record_paths(fields)}  # a records' field by path: products[].price
    found = [
        (f"/required/{i}", f'"required" names "{name}", which is not one of the fields')
        for i, name in enumerate(required)
        if isinstance(name, str) and not name.startswith("${{") and name not in known
    ]
    if given.get("optional") is True:
        found.append(("/optional", '"optional: true" never fails, so "required" cannot hold'))
    return found


def _described(names: list[str], fields: dict[str, dict[str, Any]]) -> str:
    return ", ".join(f'{name} ("{fields[name]["selector"]}")' for name in names)


def _not_found(
    root: str | None, names: list[str], fields: dict[str, Any], waited: int, required: bool
) -> TaskplateError:
    where = f' inside root "{root}"' if root else ""
    plural = "s" if len(names) > 1 else ""
    what = f"required field{plural} not found" if required else "no field found"
    return TaskplateError(
        ErrorCode.ELEMENT_NOT_FOUND,
        f"{what} after {waited} ms{where}: {_described(names, fields)}",
        "Check the selectors against the page (snapshot, get_page_content), give a slow page "
        "more timeoutMs, or set optional: true to accept nulls.",
        {"fields": names},
    )


async def run(ctx: ActionContext, args: dict[str, Any]) -> dict[str, Any]:
    problems = check_args(args)
    if problems:
        raise TaskplateError(ErrorCode.INVALID_PARAMETER, problems[0][1], "Fix the arguments.")
    page = await ctx.page()
    fields = shaped(args["fields"])
    root, required = args.get("root"), list(args.get("required", []))
    # `products[].price`: the list is waited for; its records are judged once read.
    inner_required = [n for n in required if n not in fields]
    heads = [n.split("[]")[0].split(".")[0] for n in inner_required]
    required = [n for n in dict.fromkeys([*required, *heads]) if n in fields]
    optional = bool(args.get("optional", False))
    waited = 0 if optional else args.get("timeoutMs", DEFAULT_TIMEOUT_MS)
    # A boolean's absence is its answer (false): it is never waited for unless required.
    awaited = [n for n, f in fields.items() if f.get("type") != "boolean" or "fields" in f]
    script = with_watch(EXTRACT)
    started = time.monotonic()

    async def look(wait_ms: int) -> Any:
        try:
            return await page.evaluate(script, [root, fields, awaited, required, wait_ms])
        except Exception as exc:
            if "is not a valid selector" in str(exc):
                raise TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f"a selector is not valid CSS: {str(exc).splitlines()[0]}",
                    "Fix the selector.",
                ) from None
            raise  # run_action reads again after a navigation, and translates the rest

    read, warnings = await look(waited), list[str]()
    if read is not None and waited and read["found"] and has_lists(fields):
        # An `all: true` list a script is still filling is read once it has stopped growing.
        left_s = waited / 1000 - (time.monotonic() - started)
        quiet_ms = args.get("quietMs", DEFAULT_QUIET_MS)
        tab = await ctx.tab()
        read, warnings = await steady(tab, read, lambda: look(0), fields, left_s, quiet_ms)
    if read is None:
        raise TaskplateError(
            ErrorCode.ELEMENT_NOT_FOUND,
            f'root "{root}" matches no element' + (f" after {waited} ms" if waited else ""),
            "Check the root selector.",
        )
    found = set(read["found"])
    if not optional:
        absent = [n for n in required if n not in found]
        if absent:
            raise _not_found(root, absent, fields, waited, required=True)
        if awaited and not found & set(awaited):
            raise _not_found(root, awaited, fields, waited, required=False)
    values = {name: _typed_field(read["values"][name], f) for name, f in fields.items()}
    missing = [k for k, v in values.items() if v is None or v == []]
    unread = unmatched(read["values"], fields)
    absent_inner = [
        u
        for u in unmatched(read["values"], fields, least=0)  # required: in one record too
        if any(n == u.path or n.startswith((u.path + ".", u.path + "[].")) for n in inner_required)
    ]
    if absent_inner and not optional:
        raise not_in_records(absent_inner)
    missing += [u.path for u in unread]
    warnings += [u.warning() for u in unread]
    return {"values": values, "missing": missing} | ({"warnings": warnings} if warnings else {})


def _value_schema(field: Any) -> dict[str, Any]:
    """A field's value as a schema; what an expression gives is unknown (no schema)."""
    if isinstance(field, str):
        return _VALUE_SCHEMA["string"]
    if not isinstance(field, dict):
        return {}
    inner = field.get("fields")
    if isinstance(inner, dict):
        props = {name: _value_schema(f) for name, f in inner.items()}
        many = {"type": "object", "properties": props, "additionalProperties": False}
        one = {**many, "type": ["object", "null"]}  # the first match, or null without one
    else:
        kind = field.get("type", "string")
        many = one = _VALUE_SCHEMA.get(kind, {}) if isinstance(kind, str) else {}
    return {"type": "array", "items": many} if field.get("all") is True else one


def result_schema_for(args_given: dict[str, Any]) -> dict[str, Any]:
    """The result with `values` typed field by field (records too), when they are written out."""
    fields = args_given.get("fields")
    if not isinstance(fields, dict):
        return RESULT
    properties = {name: _value_schema(field) for name, field in fields.items()}
    values = {"type": "object", "properties": properties, "additionalProperties": False}
    return result({"values": values, "missing": RESULT["properties"]["missing"]})


RESULT = result(
    {"values": {"type": "object"}, "missing": {"type": "array", "items": {"type": "string"}}}
)

_ARGS = args(
    {
        "root": css_selector("only look inside this element.", "query"),
        "fields": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {"$ref": "#/$defs/field"},
        },
        "required": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 1,
            "uniqueItems": True,
            "description": "Fields that must be found: the step waits for each and fails "
            "without it. A records' field by its path (`products[].price`): the step fails "
            "when no record has it.",
        },
        "optional": {
            "type": "boolean",
            "default": False,
            "description": "Read the page as it is: no wait, nulls for what is missing, never "
            "ELEMENT_NOT_FOUND for a field.",
        },
        "timeoutMs": {
            **TIMEOUT_MS,
            "default": DEFAULT_TIMEOUT_MS,
            "description": "How long to wait for the fields (a required one, or any one), "
            "and for `all: true` lists to stop growing.",
        },
        "quietMs": {
            "type": "integer",
            "minimum": 50,
            "maximum": 10_000,
            "default": DEFAULT_QUIET_MS,
            "description": "An `all: true` list is read once its number of matches has not "
            "changed for this long (at once on a page that is stable); a list still growing "
            "at timeoutMs is read as it is, with a warning.",
        },
    },
    ["fields"],
)
_ARGS["$defs"] = DEFS

ACTION = ActionSpec(
    name="extract",
    level=Level.L0,
    summary="Read named fields (text or an attribute, one or all matches, or a record of "
    "fields per match) under an optional root, typed as string, number, integer, boolean or "
    "absolute url; waits until the fields appear and `all: true` lists stop growing.",
    args_schema=_ARGS,
    result_schema=RESULT,
    pure=True,
    run=run,
    result_schema_for=result_schema_for,
    check_args=check_args,
)
