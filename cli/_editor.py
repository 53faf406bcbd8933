"""What an editor asks of a template being typed: completions and hover text at a position.

Pure functions of the document's text (lines and characters from 0, as LSP counts them); the
language server in lsp.py only translates them to the protocol. Never raises on broken text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from taskplate.dsl import FUNCTIONS, TEMPLATE_SCHEMA, ActionSpec
from taskplate.stdlib import REGISTRY

_KEY_LINE = re.compile(r"^(?P<indent>\s*)(?P<dash>-\s+)?(?P<key>[A-Za-z_][\w-]*)\s*:(?P<rest>.*)$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LOOP_RESULT = {"items": "each item: its collect plus success and error", "summary": "counts"}


@dataclass(frozen=True)
class Item:
    """A completion: the text to insert, what kind of thing it is, and a line of help."""

    label: str
    kind: str  # "key", "action", "argument", "function", "input", "step", "property", "value"
    detail: str = ""
    documentation: str = ""


@dataclass(frozen=True)
class _Line:
    number: int
    column: int  # where the key starts (after "- ")
    key: str
    rest: str
    dash: bool


def _parse_line(number: int, text: str) -> _Line | None:
    match = _KEY_LINE.match(text)
    if match is None or text.lstrip().startswith("#"):
        return None
    column = len(match.group("indent")) + len(match.group("dash") or "")
    return _Line(number, column, match.group("key"), match.group("rest"), bool(match.group("dash")))


def _parents(lines: list[str], row: int, column: int) -> list[_Line]:
    """The keys enclosing a position, outermost first (by indentation, YAML block style)."""
    chain: list[_Line] = []
    limit = column
    for number in range(row - 1, -1, -1):
        found = _parse_line(number, lines[number])
        if found is None:
            continue
        if found.column < limit:
            chain.append(found)
            limit = found.column
        # The first key of a list item: the list's own key stands left of the dash.
        if found.dash and found.column <= limit:
            limit = found.column - 2
    return list(reversed(chain))


def _step_action(lines: list[str], with_line: _Line) -> str | None:
    """The action of the step that holds `with_line`: a key of the same list item."""
    column = with_line.column
    for number in range(with_line.number, -1, -1):
        found = _parse_line(number, lines[number])
        if found is None or found.column > column:
            continue
        if found.column < column:
            break
        if found.key == "action":
            return found.rest.strip().strip("'\"") or None
        if found.dash:
            break
    for number in range(with_line.number + 1, len(lines)):
        found = _parse_line(number, lines[number])
        if found is None or found.column > column:
            continue
        if found.column < column or found.dash:
            break
        if found.key == "action":
            return found.rest.strip().strip("'\"") or None
    return None


def _schema_at(lines: list[str], chain: list[_Line]) -> dict[str, Any] | None:
    """The schema of the map at the end of `chain`: the template's, a step's, an action's."""
    schema: Any = TEMPLATE_SCHEMA
    for at, line in enumerate(chain):
        if line.key == "with":
            action = _step_action(lines, line)
            spec = REGISTRY.get(action) if action else None
            return _inside(spec.args_schema, [k.key for k in chain[at + 1 :]]) if spec else None
        if not isinstance(schema, dict):
            return None
        schema = schema.get("properties", {}).get(line.key)
        if isinstance(schema, dict) and schema.get("type") == "array":
            schema = schema.get("items")
        if isinstance(schema, dict) and "$ref" in schema:
            schema = TEMPLATE_SCHEMA["$defs"]["step"]
        if line.key in ("inputs", "outputs", "output", "collect"):
            return None  # free-form maps: JSON Schema or values, not template keys
    return schema if isinstance(schema, dict) else None


def _inside(root: dict[str, Any], keys: list[str]) -> dict[str, Any] | None:
    """The map schema that `keys` lead to inside an action's arguments (extract's fields and
    their records' fields): a property, else any key's schema, a map among its choices."""
    schema: Any = root
    for key in keys:
        if not isinstance(schema, dict):
            return None
        props = schema.get("properties", {})
        schema = _map_choice(
            root, props[key] if key in props else schema.get("additionalProperties")
        )
    schema = _map_choice(root, schema)
    return schema if isinstance(schema, dict) else None


def _map_choice(root: dict[str, Any], schema: Any) -> Any:
    """A schema with its $ref followed (in the arguments' $defs) and, of choices, the map."""
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        schema = root.get("$defs", {}).get(schema["$ref"].rsplit("/", 1)[-1])
    if isinstance(schema, dict) and "anyOf" in schema:
        maps = [s for s in schema["anyOf"] if isinstance(s, dict) and s.get("type") == "object"]
        schema = maps[0] if maps else None
    return schema


def _expression_before(line: str, character: int) -> str | None:
    """The text of an unclosed `${{` before the cursor on this line, or None."""
    head = line[:character]
    start = head.rfind("${{")
    if start < 0 or "}}" in head[start:]:
        return None
    return head[start + 3 :]


def _loaded(text: str, editing: int) -> dict[str, Any]:
    """The document's data; while the line being typed breaks the YAML, the rest of it."""
    import yaml

    lines = text.split("\n")
    for attempt in (text, "\n".join(lines[:editing] + lines[editing + 1 :])):
        try:
            data = yaml.safe_load(attempt)
        except yaml.YAMLError:
            continue
        return data if isinstance(data, dict) else {}
    return {}


def _all_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    out, stack = [], list(data.get("steps") or [])
    while stack:
        step = stack.pop(0)
        if isinstance(step, dict):
            out.append(step)
            stack.extend(step.get("steps") or [])
    return out


def _result_properties(step: dict[str, Any], path: list[str]) -> dict[str, str]:
    """The properties of a step's result, or of the part of it that `path` names."""
    if "forEach" in step:
        return dict(_LOOP_RESULT) if not path else {}
    spec = REGISTRY.get(step.get("action", ""))
    if spec is None:
        return {}
    schema: Any = spec.result_schema
    args = step.get("with")
    if spec.result_schema_for is not None and isinstance(args, dict):
        schema = spec.result_schema_for(args)
    if spec.result_from_args and isinstance(args, dict):
        return {k: "a value given to set" for k in args} if not path else {}
    for name in path:
        if not isinstance(schema, dict):
            return {}
        # an index (`items[0]`) is an item of the list
        schema = schema.get("items") if name == "[]" else schema.get("properties", {}).get(name)
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return {k: _type_text(v) for k, v in props.items() if isinstance(v, dict)}


def _expression_items(text: str, line: int, expression: str) -> list[Item]:
    data = _loaded(text, line)
    steps = {s["id"]: s for s in _all_steps(data) if isinstance(s.get("id"), str)}
    path = re.search(r"((?:[A-Za-z_]\w*(?:\[\d+\])*\.)+)(\w*)$", expression)
    if path is not None:
        names = re.findall(r"[A-Za-z_]\w*|\[\d+\]", path.group(1))
        names = ["[]" if n.startswith("[") else n for n in names]
        if names == ["inputs"]:
            props = (data.get("inputs") or {}).get("properties") or {}
            return [
                Item(k, "input", str(v.get("type", "")) if isinstance(v, dict) else "")
                for k, v in props.items()
            ]
        if names == ["steps"]:
            return [Item(k, "step", str(s.get("action") or "forEach")) for k, s in steps.items()]
        if len(names) >= 2 and names[0] == "steps" and names[1] in steps:
            props = _result_properties(steps[names[1]], names[2:])
            return [Item(k, "property", doc) for k, doc in props.items()]
        if names == ["run"]:
            return [
                Item(k, "property")
                for k in ("runId", "templateId", "templateVersion", "sessionId", "profileId")
            ]
        return []
    loop_names = sorted({str(s.get("as", "item")) for s in _all_steps(data) if "forEach" in s})
    items = [Item(n, "value", "") for n in ("inputs", "steps", "run")]
    items += [Item(n, "value", "the current item of a forEach") for n in loop_names]
    items += [
        Item(f.name, "function", f.signature or f"{f.name}()", f.summary)
        for f in FUNCTIONS.values()
    ]
    return items


def _value_items(lines: list[str], chain: list[_Line], key: str) -> list[Item]:
    if key == "action":
        return [Item(spec.name, "action", spec.level.value, spec.summary) for spec in _specs()]
    schema = _schema_at(lines, chain)
    prop = (schema or {}).get("properties", {}).get(key)
    if isinstance(prop, dict) and isinstance(prop.get("enum"), list):
        return [Item(str(v), "value") for v in prop["enum"]]
    if isinstance(prop, dict) and prop.get("type") == "boolean":
        return [Item("true", "value"), Item("false", "value")]
    return []


def _specs() -> list[ActionSpec]:
    return [REGISTRY[name] for name in sorted(REGISTRY)]


def completions(text: str, line: int, character: int) -> list[Item]:
    """What may be written at a position: keys, action names, arguments, names and functions
    inside `${{ }}`."""
    lines = text.split("\n")
    if line >= len(lines):
        return []
    current = lines[line]
    expression = _expression_before(current, character)
    if expression is not None:
        return _expression_items(text, line, expression)
    head = current[:character]
    value = re.match(r"^(\s*)(-\s+)?([A-Za-z_][\w-]*)\s*:\s*\S*$", head)
    if value is not None:
        column = len(value.group(1)) + len(value.group(2) or "")
        chain = _parents(lines, line, column)
        return _value_items(lines, chain, value.group(3))
    key = re.match(r"^(\s*)(-\s+)?[\w-]*$", head)
    if key is None:
        return []
    column = len(key.group(1)) + len(key.group(2) or "")
    chain = _parents(lines, line, column)
    schema = _schema_at(lines, chain)
    if schema is None:
        return []
    kind = "argument" if chain and chain[-1].key == "with" else "key"
    return [
        Item(name, kind, _type_text(prop), str(prop.get("description", "")))
        for name, prop in schema.get("properties", {}).items()
        if isinstance(prop, dict)
    ]


def _type_text(prop: dict[str, Any]) -> str:
    kind = prop.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if "enum" in prop:
        return " | ".join(str(v) for v in prop["enum"])
    return str(kind or prop.get("x-hint", ""))


def hover(text: str, line: int, character: int) -> str | None:
    """Markdown help for the word under the cursor: an action, a function, an argument, a key."""
    lines = text.split("\n")
    if line >= len(lines):
        return None
    current = lines[line]
    word = next((m for m in _WORD.finditer(current) if m.start() <= character <= m.end()), None)
    if word is None:
        return None
    name = word.group()
    if _expression_before(current, word.start()) is not None:
        function = FUNCTIONS.get(name)
        if function is not None and current[word.end() :].lstrip().startswith("("):
            return f"**{function.signature or name + '()'}**\n\n{function.summary}"
        return None
    parsed = _parse_line(line, current)
    if (
        parsed is not None
        and parsed.key == "action"
        and name in REGISTRY
        and word.start() > parsed.column
    ):
        return _action_help(REGISTRY[name])
    if parsed is not None and parsed.key == name:
        chain = _parents(lines, line, parsed.column)
        schema = _schema_at(lines, chain)
        prop = (schema or {}).get("properties", {}).get(name)
        if isinstance(prop, dict):
            described = prop.get("description") or prop.get("x-hint") or ""
            return f"**{name}**: {_type_text(prop)}\n\n{described}".rstrip()
    return None


def _action_help(spec: ActionSpec) -> str:
    lines = [f"**{spec.name}** ({spec.level.value})", "", spec.summary, "", "Arguments:"]
    required = set(spec.args_schema.get("required", []))
    for name, prop in spec.args_schema.get("properties", {}).items():
        mark = " (required)" if name in required else ""
        about = prop.get("description", "") if isinstance(prop, dict) else ""
        lines.append(
            f"- `{name}`{mark}: {_type_text(prop) if isinstance(prop, dict) else ''} {about}".rstrip()
        )
    return "\n".join(lines)
