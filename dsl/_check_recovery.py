"""The template against its meta-schema, read as meant: a misspelt key with one close suggestion
is reported, then renamed to it, so that every other rule sees what the author meant.

Reports only `template-schema` problems of the meta-schema; the other rules run on its result.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ._check_context import Diagnostics, Report
from ._metaschema import TEMPLATE
from ._schema_errors import explain, pointer_of, validation_errors
from ._yaml import escape_pointer
from .expr import closest

if TYPE_CHECKING:
    import jsonschema

_MENTION_INPUT = re.compile(r"\binputs\s*(?:\.\s*|\[\s*['\"])([A-Za-z_][A-Za-z0-9_]*)")
_MENTION_STEP = re.compile(r"\bsteps\s*(?:\.\s*|\[\s*['\"])([A-Za-z_][A-Za-z0-9_]*)")


def read_as_meant(
    raw: dict[str, Any],
    report: Report,
    diagnostics: Diagnostics,
    used_inputs: set[str],
    used_steps: set[str],
) -> dict[str, Any]:
    """Report (as `template-schema`) what breaks the meta-schema; return the template with
    every misspelt key that has one close suggestion renamed to it (`diagnostics.renames`
    maps them back), and count the names mentioned under keys no rule reads as used."""
    data = raw
    errors: list[jsonschema.ValidationError] = []
    for _ in range(16):  # each round may uncover keys inside a renamed one
        errors = validation_errors(TEMPLATE, data)
        fixes = [fix for error in errors for fix in _renames(error)]
        if not fixes:
            break
        for error in errors:
            if error.validator == "additionalProperties":
                _report(error, data, report)
        data = _renamed(data, fixes)
        for path, old, new in fixes:
            at = pointer_of(path)
            diagnostics.renames[f"{at}/{escape_pointer(new)}"] = diagnostics.in_file(
                f"{at}/{escape_pointer(old)}"
            )
    for error in errors:
        _report(error, data, report)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
            for extra in set(error.instance) - set(known):
                note_mentions(error.instance[extra], used_inputs, used_steps)
    return data


def note_mentions(value: Any, used_inputs: set[str], used_steps: set[str]) -> None:
    """Count inputs and steps named in text no check could read (an unknown key, an
    expression that does not parse) as used: their unused warning would be the error's."""
    texts = [value] if isinstance(value, str) else []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
            texts.extend(k for k in node if isinstance(k, str))
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            texts.append(node)
    for text in texts:
        used_inputs.update(_MENTION_INPUT.findall(text))
        used_steps.update(_MENTION_STEP.findall(text))


def _report(error: jsonschema.ValidationError, data: Any, report: Report) -> None:
    where = _where(list(error.absolute_path), data)
    for problem in explain(error, where, "the template"):
        report(problem.message, problem.pointer, key=problem.at_key)


def _where(path: list[Any], data: Any) -> str:
    if not path:
        return "the template"
    node: Any = data
    for p in path:
        node = node[p] if isinstance(node, dict | list) else None
    if len(path) >= 2 and path[-2] == "steps" and isinstance(node, dict):
        return f'step "{node["id"]}"' if isinstance(node.get("id"), str) else "step"
    return f'"{path[-1]}"'


def _renames(error: jsonschema.ValidationError) -> list[tuple[list[Any], str, str]]:
    """(path, misspelt key, key meant) for each unknown key with exactly one close match."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    fixes = []
    for extra in sorted(set(error.instance) - set(known)):
        if not isinstance(extra, str):
            continue
        meant = closest(extra, known)
        if meant is not None and meant not in error.instance:
            fixes.append((list(error.absolute_path), extra, meant))
    return fixes


def _renamed(data: Any, fixes: list[tuple[list[Any], str, str]]) -> Any:
    """A copy of `data` with each fix's key renamed in the map at its path, its place kept;
    only the maps and lists on the fixes' paths are copied, each once."""
    tree: dict[Any, Any] = {}  # path token -> subtree; "" -> {old key: new key} at that map
    for path, old, new in fixes:
        node = tree
        for token in path:
            node = node.setdefault(("at", token), {})
        node.setdefault("", {})[old] = new
    return _copy_renamed(data, tree)


def _copy_renamed(data: Any, tree: dict[Any, Any]) -> Any:
    keys = tree.get("", {})
    if isinstance(data, dict):
        return {
            keys.get(k, k): _copy_renamed(v, tree[("at", k)]) if ("at", k) in tree else v
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [
            _copy_renamed(v, tree[("at", i)]) if ("at", i) in tree else v
            for i, v in enumerate(data)
        ]
    return data
