"""The `extract` action: named values read from the page by selectors, typed when asked; a
field with `fields` of its own reads a record per match. Waits for its fields as locators do.

Declaration and implementation; page access goes through the browser runtime.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import anyio

from taskplate.contract import ErrorCode, Level, TaskplateError, valid_json
from taskplate.dsl import ActionSpec, parse_number

from .._elements import DEFAULT_TIMEOUT_MS
from .._json_text import walked
from .._schemas import BOOLEAN, TIMEOUT_MS, args, css_selector, result
from ._extract_fields import DEFS, EXTRACT, MAX_CUTS, shaped
from ._extract_lists import DEFAULT_QUIET_MS, counts, has_lists, steady, with_watch
from ._extract_missing import not_in_records, record_paths, unmatched

if TYPE_CHECKING:
    from .._context import ActionContext

_VALUE_SCHEMA: dict[str, dict[str, Any]] = {
    "string": {"type": ["string", "null"]},
    "number": {"type": ["number", "null"]},
    "integer": {"type": ["integer", "null"]},
    "boolean": {"type": "boolean"},
    "url": {"type": ["string", "null"]},
}


# What the values of one extract may take, in characters of their JSON, counted in the page:
# past it a list stops and a text is cut, with a warning. The bound keeps what one read sends
# into the server, and the work on it, to what the event loop carries in well under 100 ms.
MAX_BYTES = 1_000_000
DEFAULT_MAX_BYTES = MAX_BYTES


def _typed(value: Any, kind: str) -> Any:
    if not isinstance(value, str) or kind not in ("number", "integer"):
        return value
    number = parse_number(value)
    if kind == "integer":
        whole = number is not None and float(number).is_integer()
        return int(number) if whole and number is not None else None
    return number


# Field names go to the page prefixed: a page's object keyed by a caller's name would read
# `__proto__` as its prototype, not a key (and Playwright builds the argument the same way).
KEY = "f:"


def _keyed(fields: dict[str, Any]) -> dict[str, Any]:
    """`fields` as the page script takes them: every name, at every depth, prefixed with KEY."""
    return {
        KEY + name: {**f, "fields": _keyed(f["fields"])} if isinstance(f.get("fields"), dict) else f
        for name, f in fields.items()
    }


def _typed_field(value: Any, field: dict[str, Any]) -> Any:
    """A field's value as read, typed: each value of a list, each field of a record (typed in
    place: a large answer is not copied again)."""
    if field.get("all") and isinstance(value, list):
        for index, one in enumerate(value):
            value[index] = _typed_one(one, field)
        return value
    return _typed_one(value, field)


def _typed_one(value: Any, field: dict[str, Any]) -> Any:
    inner = field.get("fields")
    if isinstance(inner, dict):
        if not isinstance(value, dict):
            return None
        for name, f in inner.items():
            value[name] = _typed_field(value.pop(KEY + name, None), f)
        return value
    return _typed(value, field.get("type", "string"))


def _cut_warnings(read: dict[str, Any], max_bytes: int) -> list[str]:
    """One line per cut the page made (and how many more), each saying how to get the rest."""
    why = f"the values reached maxBytes ({max_bytes:,} characters of JSON)"
    lines = []
    for cut in read["cut"]:
        path = f"values.{cut['path']}"
        if "matches" in cut:
            lines.append(
                f"{path}: the first {cut['kept']:,} of {cut['matches']:,} matches read: {why}"
            )
        else:
            lines.append(
                f"{path}: cut at {cut['kept']:,} of {cut['characters']:,} characters: {why}"
            )
    more = read["cuts"] - len(read["cut"])
    if more:
        lines.append(f"and {more:,} more values cut")
    raise_it = f"raise maxBytes (up to {MAX_BYTES:,}), or " if max_bytes < MAX_BYTES else ""
    lines.append(f"{raise_it}narrow the selectors or root to read the rest part by part")
    return lines


def _parsed(text: str, fields: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The page's JSON answer read, typed, and its lists' matches counted (in a worker thread:
    it is Python work in proportion to the values, which may be megabytes)."""
    read: dict[str, Any] = valid_json(text)
    values = read["values"]
    read["values"] = {name: _typed_field(values.get(KEY + name), f) for name, f in fields.items()}
    read["counts"] = counts(read["values"], fields)
    return read


def _unmatched(values: dict[str, Any], fields: dict[str, dict[str, Any]]) -> tuple[Any, Any]:
    """The records' fields matched in too few records to trust, and in none at all."""
    return unmatched(values, fields), unmatched(values, fields, least=0)


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
    max_bytes = args.get("maxBytes", DEFAULT_MAX_BYTES)
    keyed = _keyed(fields)
    names = [[KEY + n for n in group] for group in (awaited, required)]
    script = with_watch(EXTRACT)
    started = time.monotonic()

    async def look(wait_ms: int) -> dict[str, Any] | None:
        try:
            text = await page.evaluate(script, [root, keyed, *names, wait_ms, max_bytes, MAX_CUTS])
        except Exception as exc:
            if "is not a valid selector" in str(exc):
                raise TaskplateError(
                    ErrorCode.INVALID_PARAMETER,
                    f"a selector is not valid CSS: {str(exc).splitlines()[0]}",
                    "Fix the selector.",
                ) from None
            raise  # run_action reads again after a navigation, and translates the rest
        return None if text is None else await anyio.to_thread.run_sync(_parsed, text, fields)

    read, warnings = await look(waited), list[str]()
    if read is not None and waited and read["found"] and has_lists(fields):
        # An `all: true` list a script is still filling is read once it has stopped growing.
        left_s = waited / 1000 - (time.monotonic() - started)
        quiet_ms = args.get("quietMs", DEFAULT_QUIET_MS)
        tab = await ctx.tab()
        read, warnings = await steady(tab, read, lambda: look(0), left_s, quiet_ms)
    if read is None:
        raise TaskplateError(
            ErrorCode.ELEMENT_NOT_FOUND,
            f'root "{root}" matches no element' + (f" after {waited} ms" if waited else ""),
            "Check the root selector.",
        )
    found = {name.removeprefix(KEY) for name in read["found"]}
    if not optional:
        absent = [n for n in required if n not in found]
        if absent:
            raise _not_found(root, absent, fields, waited, required=True)
        if awaited and not found & set(awaited):
            raise _not_found(root, awaited, fields, waited, required=False)
    values = read["values"]
    missing = [k for k, v in values.items() if v is None or v == []]
    unread, in_none = await walked(_unmatched, values, fields)  # a walk of every record
    absent_inner = [
        u
        for u in in_none  # required: in one record too
        if any(n == u.path or n.startswith((u.path + ".", u.path + "[].")) for n in inner_required)
    ]
    if absent_inner and not optional:
        raise not_in_records(absent_inner)
    missing += [u.path for u in unread]
    warnings += [u.warning() for u in unread]
    if read["cuts"]:
        warnings += _cut_warnings(read, max_bytes)
    truncated = {"truncated": True} if read["cuts"] else {}
    return (
        {"values": values, "missing": missing}
        | truncated
        | ({"warnings": warnings} if warnings else {})
    )


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
    return result(
        {"values": values, "missing": RESULT["properties"]["missing"], "truncated": BOOLEAN},
        ["values", "missing"],
    )


RESULT = result(
    {
        "values": {"type": "object"},
        "missing": {"type": "array", "items": {"type": "string"}},
        "truncated": {
            **BOOLEAN,
            "description": "Present (true) when maxBytes cut a list or a text; warnings say where.",
        },
    },
    ["values", "missing"],
)

_ARGS = args(
    {
        "root": css_selector("Only look inside this element.", "query"),
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
            "description": "`all: true` lists are read once their lengths hold this long "
            "(a stable page: at once); still growing at timeoutMs: read, with a warning.",
        },
        "maxBytes": {
            "type": "integer",
            "minimum": 1_000,
            "maximum": MAX_BYTES,
            "default": DEFAULT_MAX_BYTES,
            "description": "At most this many characters of JSON for the values: past it a "
            "list stops at the last whole match and a text is cut, with truncated: true and a "
            "warning naming each.",
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
