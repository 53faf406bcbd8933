"""Where a template's literal selectors are in its source text, and the text with one of them
replaced in place: a repair keeps every other byte of the file (formatting, comments, quotes).

Reads and edits text only; never dumps YAML again.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from taskplate.contract import lazy_dataclass

# A selector that reads as itself written plain in YAML, block or flow context.
_PLAIN = re.compile(r"[A-Za-z.][A-Za-z0-9_.\- >]*")


@lazy_dataclass(frozen=True)
class SelectorSpan:
    """One literal selector of an action step: the step, where in its `with` (`("selector",)`,
    `("root",)`, `("fields", NAME)`, a record's `("fields", NAME, "fields", INNER)`), its
    value, and the characters it takes in the source."""

    step_id: str
    path: tuple[str, ...]
    value: str
    line: int  # 1-based
    start: int  # character offsets in the text, quotes included
    end: int
    style: str | None  # None plain, or the quote: ' or "


def selector_spans(text: str, *, attrs: bool = False) -> list[SelectorSpan]:
    """Every selector of the template's action steps written as a literal on one line (one
    made by an expression cannot be repaired in place); with `attrs`, each field's `attr` too
    (its path `("fields", NAME, "attr")`)."""
    try:
        tree = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    found: list[SelectorSpan] = []
    for step in _mappings(tree):
        keys = {k.value: v for k, v in step.value if isinstance(k, yaml.ScalarNode)}
        step_id, with_ = keys.get("id"), keys.get("with")
        if "action" not in keys or not isinstance(step_id, yaml.ScalarNode):
            continue
        if not isinstance(with_, yaml.MappingNode):
            continue
        args = {k.value: v for k, v in with_.value if isinstance(k, yaml.ScalarNode)}
        places: list[tuple[tuple[str, ...], Any]] = [
            ((key,), args[key]) for key in ("selector", "root") if key in args
        ]
        places += _field_places(args.get("fields"), ("fields",), attrs)
        for path, node in places:
            span = _span(step_id.value, path, node)
            if span is not None:
                found.append(span)
    return found


def _field_places(
    fields: Any, prefix: tuple[str, ...], attrs: bool
) -> list[tuple[tuple[str, ...], Any]]:
    """extract's field selectors, a record's own fields after it (`("fields", "items",
    "fields", "title")`), to any depth; with `attrs`, each field's `attr` too (its path ends
    with "attr")."""
    if not isinstance(fields, yaml.MappingNode):
        return []
    places: list[tuple[tuple[str, ...], Any]] = []
    for name, field in fields.value:
        path = (*prefix, str(name.value))
        if not isinstance(field, yaml.MappingNode):
            places.append((path, field))
            continue
        keys = {k.value: v for k, v in field.value if isinstance(k, yaml.ScalarNode)}
        if attrs and "attr" in keys:
            places.append(((*path, "attr"), keys["attr"]))
        places.append((path, keys.get("selector")))
        places += _field_places(keys.get("fields"), (*path, "fields"), attrs)
    return places


def _mappings(node: yaml.Node | None) -> list[yaml.MappingNode]:
    if isinstance(node, yaml.MappingNode):
        return [node, *(m for _, v in node.value for m in _mappings(v))]
    if isinstance(node, yaml.SequenceNode):
        return [m for item in node.value for m in _mappings(item)]
    return []


def _span(step_id: str, path: tuple[str, ...], node: Any) -> SelectorSpan | None:
    if not isinstance(node, yaml.ScalarNode) or not isinstance(node.value, str):
        return None
    if "${{" in node.value or node.start_mark.line != node.end_mark.line:
        return None
    if node.style not in (None, "'", '"'):
        return None
    return SelectorSpan(
        step_id,
        path,
        node.value,
        node.start_mark.line + 1,
        node.start_mark.index,
        node.end_mark.index,
        node.style,
    )


def written(selector: str, style: str | None) -> str:
    """The selector as YAML source in the style it replaces, where that style can hold it."""
    plain = style is None and _PLAIN.fullmatch(selector) and not selector.endswith(" ")
    if plain and yaml.safe_load(f"[{selector}]") == [selector]:  # not a number, not a flag
        return selector
    if style != '"' and "'" not in selector:
        return "'" + selector + "'"
    return json.dumps(selector, ensure_ascii=False)  # a JSON string is a double-quoted scalar


def with_selectors(text: str, changes: dict[SelectorSpan, str]) -> str:
    """The source with each span's selector replaced, every other character kept."""
    out = text
    for span in sorted(changes, key=lambda s: s.start, reverse=True):
        out = out[: span.start] + written(changes[span], span.style) + out[span.end :]
    return out
