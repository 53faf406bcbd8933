"""YAML loading that keeps where every value came from, so diagnostics point into the user's file.

Follows the YAML 1.2 core schema for scalars (`on`/`yes` stay strings); refuses duplicate keys,
custom tags and alias bombs. Knows nothing of templates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from taskplate.contract import field, lazy_dataclass

from ._diagnostics import Span

# libyaml's parser (bundled with PyYAML's wheels) composes the same nodes ~10x faster.
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"
# The only plain scalars that the safe resolver tags outside the tags _Builder accepts.
_ODD_PLAIN = {"<<": "tag:yaml.org,2002:merge", "=": "tag:yaml.org,2002:value"}


class _Loader(_BASE_LOADER):  # type: ignore[misc,valid-type]
    """The safe loader with a cheap implicit resolver.

    _Builder resolves scalars itself (YAML 1.2 core) and only asks whether a tag is one it
    knows; every tag the safe resolver gives a plain scalar is known except those of "<<" and
    "=", which keep them here, so the diagnostics stay the same.
    """

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0] and value in _ODD_PLAIN:
                return _ODD_PLAIN[value]
            return _STR_TAG
        return _SEQ_TAG if kind is yaml.SequenceNode else _MAP_TAG


_LOADER = _Loader
MAX_NODES = 20_000
MAX_DEPTH = 100
MAX_DIGITS = 4300  # what int() reads of a decimal text (Python's int_max_str_digits)
# Up to this size libyaml composes the whole document at once (a few hundred ms at most);
# a larger one is composed node by node and dropped as soon as it holds too many values.
_COMPOSE_AT_ONCE = 64 * 1024


def _too_many(mark: Any) -> YamlError:
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    return YamlError(
        f"the document holds more than {MAX_NODES} values; a template or a case file is far "
        "smaller (move data into inputs, split the template, or expect a subset of the output)",
        Span.point(line, column),
    )


class _CountingLoader(_Loader):
    """libyaml's parser with PyYAML's composer, counting: it stops at the first node past
    what any document of at most MAX_NODES values (keys aside) can hold."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.anchors: dict[str, yaml.Node] = {}
        self.composed = 0

    get_single_node = yaml.composer.Composer.get_single_node
    compose_document = yaml.composer.Composer.compose_document
    compose_scalar_node = yaml.composer.Composer.compose_scalar_node
    compose_sequence_node = yaml.composer.Composer.compose_sequence_node
    compose_mapping_node = yaml.composer.Composer.compose_mapping_node

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self.composed += 1
        if self.composed > 2 * MAX_NODES + 2:  # a key and its value per value at most
            raise _too_many(self.peek_event().start_mark)
        return yaml.composer.Composer.compose_node(self, parent, index)


def _compose(text: str) -> yaml.Node | None:
    if len(text) <= _COMPOSE_AT_ONCE:
        return yaml.compose(text, Loader=_LOADER)
    loader = _CountingLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


class NodeInfo:
    """Where a node stands; the span is computed only when a diagnostic asks for it."""

    __slots__ = ("_node",)

    def __init__(self, node: yaml.Node) -> None:
        self._node = node

    @property
    def span(self) -> Span:
        return _span(self._node)

    @property
    def style(self) -> str | None:
        """A scalar's YAML style: None (plain), "'", '"', "|", ">"."""
        return _style(self._node)


class NodeTable(Mapping[str, NodeInfo]):
    """Pointer → NodeInfo; keeps the bare nodes and wraps one only when it is asked for."""

    __slots__ = ("raw",)

    def __init__(self) -> None:
        self.raw: dict[str, yaml.Node] = {}

    def __getitem__(self, pointer: str) -> NodeInfo:
        return NodeInfo(self.raw[pointer])

    def get(self, pointer: str, default: Any = None) -> Any:
        node = self.raw.get(pointer)
        return default if node is None else NodeInfo(node)

    def __contains__(self, pointer: object) -> bool:
        return pointer in self.raw

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)


@lazy_dataclass
class LoadedYaml:
    data: Any
    nodes: NodeTable = field(default_factory=NodeTable)
    keys: NodeTable = field(default_factory=NodeTable)

    def span(self, pointer: str, *, key: bool = False) -> Span:
        """The span at a pointer, or of its closest ancestor that has one."""
        table = self.keys if key else self.nodes
        while True:
            if pointer in table:
                return table[pointer].span
            if pointer in self.nodes:
                return self.nodes[pointer].span
            if not pointer:
                return Span(1, 1, 1, 2)
            pointer = pointer.rsplit("/", 1)[0]


class YamlError(Exception):
    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


def escape_pointer(token: str | int) -> str:
    text = str(token)
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def _span(node: yaml.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    if end.line == start.line and end.column <= start.column:
        return Span(start.line + 1, start.column + 1, start.line + 1, start.column + 2)
    return Span(start.line + 1, start.column + 1, end.line + 1, end.column + 1)


_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_INT_OTHER = re.compile(r"^0x[0-9a-fA-F]+$|^0o[0-7]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
_KNOWN_TAGS = {
    _STR_TAG,
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:seq",
    "tag:yaml.org,2002:map",
}


def _style(node: yaml.Node) -> str | None:
    """A scalar's style; plain is None (libyaml says "", the Python parser None)."""
    return (node.style or None) if isinstance(node, yaml.ScalarNode) else None


# The first characters that a null, bool, int, float, inf or nan may start with.
_SPECIAL_START = frozenset("~nNtTfF0123456789+-.")


def _scalar(node: yaml.ScalarNode) -> Any:
    text = node.value
    if node.style:  # quoted and block scalars are always strings (libyaml: "" for plain)
        return text
    if not text:
        return None
    if text[0] not in _SPECIAL_START:  # the common case: a plain word
        return text
    if _NULL.match(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        if len(text.lstrip("+-")) > MAX_DIGITS:
            raise YamlError(f"a number of more than {MAX_DIGITS} digits", _span(node))
        return int(text)
    if _INT_OTHER.match(text):
        return int(text, 0)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    return text


class _Builder:
    """Turns a composed node graph into plain values, counting nodes to bound alias expansion."""

    def __init__(self, result: LoadedYaml) -> None:
        self.result = result
        self.count = 0

    def build(self, node: yaml.Node, pointer: str, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise YamlError(
                f"the document expands to more than {MAX_NODES} values; "
                "anchors and aliases may not be used to multiply content",
                _span(node),
            )
        if depth > MAX_DEPTH:
            raise YamlError(f"the document nests deeper than {MAX_DEPTH} levels", _span(node))
        if node.tag not in _KNOWN_TAGS:
            raise YamlError(f"custom YAML tag {node.tag!r} is not supported", _span(node))
        nodes = self.result.nodes.raw
        if pointer not in nodes:
            nodes[pointer] = node
        if isinstance(node, yaml.ScalarNode):
            return _scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return [
                self.build(item, f"{pointer}/{i}", depth + 1) for i, item in enumerate(node.value)
            ]
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, pointer, depth)
        raise YamlError("unsupported YAML node", _span(node))

    def _mapping(self, node: yaml.MappingNode, pointer: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        keys = self.result.keys.raw
        nodes = self.result.nodes.raw
        build = self.build
        scalar_depth_ok = depth + 1 <= MAX_DEPTH
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise YamlError("mapping keys must be plain strings", _span(key_node))
            key = key_node.value
            if key == "<<" and _style(key_node) is None:
                raise YamlError("merge keys (<<) are not supported", _span(key_node))
            if key in out:
                first = _span(next(k for k, _ in node.value if k.value == key))
                raise YamlError(
                    f'duplicate key "{key}" (first defined at line {first.line}, '
                    f"column {first.column})",
                    _span(key_node),
                )
            child = (
                f"{pointer}/{key}"
                if "~" not in key and "/" not in key
                else f"{pointer}/{escape_pointer(key)}"
            )
            if child not in keys:
                keys[child] = key_node
            if (
                type(value_node) is yaml.ScalarNode
                and scalar_depth_ok
                and self.count < MAX_NODES
                and value_node.tag in _KNOWN_TAGS
            ):  # what build() does for a scalar, without the call
                self.count += 1
                if child not in nodes:
                    nodes[child] = value_node
                out[key] = _scalar(value_node)
            else:
                out[key] = build(value_node, child, depth + 1)
        return out


def _char_at(text: str, line: int, column: int) -> str:
    lines = text.splitlines()
    if 1 <= line <= len(lines) and 1 <= column <= len(lines[line - 1]):
        return lines[line - 1][column - 1]
    return ""


def load_yaml(text: str) -> LoadedYaml:
    """Parse one YAML document; raises YamlError with a position on any problem."""
    result = LoadedYaml(data=None)
    try:
        node = _compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or "invalid YAML"
        if _char_at(text, line, column) == "\t" or "tab character" in problem:
            problem = "a tab character cannot indent YAML; indent with spaces"
        elif exc.context:
            problem = f"{problem} ({exc.context})"
        raise YamlError(problem, Span.point(line, column)) from None
    except yaml.YAMLError as exc:
        raise YamlError(str(exc).splitlines()[0], Span.point(1, 1)) from None
    except RecursionError:
        raise YamlError(
            f"the document nests deeper than {MAX_DEPTH} levels", Span.point(1, 1)
        ) from None
    if node is None:
        return result
    result.data = _Builder(result).build(node, "", 0)
    return result
