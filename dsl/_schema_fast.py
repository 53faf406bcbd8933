"""A yes/no JSON Schema 2020-12 check for the keywords taskplate's own schemas use.

Answers quickly whether an instance is valid, without importing jsonschema, which is only
needed to explain a failure. A value computed by an expression (`DYNAMIC`) fits any schema.
Returns None for a keyword it does not know: the caller then asks jsonschema.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any

from ._values import DYNAMIC

# Keywords that never make an instance invalid.
_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$defs",
        "$comment",
        "$anchor",
        "$dynamicAnchor",
        "$vocabulary",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
        "x-hint",
        "x-message",
        "x-json-schema",  # the argument is a JSON Schema itself (checked by the checker)
        "x-selector",  # the argument is a CSS selector (checked by the css-selector rule)
    }
)
_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and math.isfinite(v) and v.is_integer())
    ),
}


class _Unsupported(Exception):
    pass


@functools.lru_cache(maxsize=512)
def _pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _key(value: Any) -> Any:
    """A hashable stand-in, equal for JSON-equal values only (as _equal), for uniqueItems in
    linear time: true is not 1, 1 is 1.0, a NaN equals nothing."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, list):
        return ("list", tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return ("map", frozenset((k, _key(v)) for k, v in value.items()))
    if isinstance(value, float) and value != value:
        return ("nan", object())
    return value


Test = Callable[[Any], bool]


class _Compiler:
    """Turns a schema into nested closures once; checking is then plain function calls."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.done: dict[int, Test] = {}

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise _Unsupported(ref)
        node = self.root
        for token in ref[1:].split("/")[1:] if ref != "#" else []:
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or token not in node:
                raise _Unsupported(ref)
            node = node[token]
        return node

    def compile(self, schema: Any) -> Test:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            raise _Unsupported(schema)
        found = self.done.get(id(schema))
        if found is not None:
            return found
        tests: list[Test] = []

        def every(v: Any) -> bool:
            if v is DYNAMIC:
                return True
            for t in tests:  # noqa: SIM110 (a loop: no generator to set up per value)
                if not t(v):
                    return False
            return True

        # Registered before the keywords compile, so that a recursive $ref finds it.
        self.done[id(schema)] = every
        for key, rule in schema.items():
            if key in _ANNOTATIONS:
                continue
            build = getattr(self, "k_" + key.replace("$", "_"), None)
            if build is None:
                raise _Unsupported(key)
            tests.append(build(rule, schema))
        if len(tests) == 1:
            only = tests[0]
            self.done[id(schema)] = lambda v: v is DYNAMIC or only(v)
        return self.done[id(schema)]

    # -- keywords: each builds a test of whether a value satisfies it -------------------------
    def k__ref(self, rule: str, _: Any) -> Test:
        target = self.resolve(rule)
        cell: list[Test] = []

        def test(v: Any) -> bool:
            if not cell:
                cell.append(self.compile(target))
            return cell[0](v)

        if id(target) in self.done or target is True or target is False:
            return self.compile(target)
        return test

    def k_type(self, rule: Any, _: Any) -> Test:
        kinds = [rule] if isinstance(rule, str) else list(rule)
        checks = [_TYPES[k] for k in kinds]
        if len(checks) == 1:
            return checks[0]

        def some(v: Any) -> bool:
            for c in checks:  # noqa: SIM110 (a loop: no generator to set up per value)
                if c(v):
                    return True
            return False

        return some

    def k_enum(self, rule: list[Any], _: Any) -> Test:
        if rule and all(type(option) is str for option in rule):
            texts = frozenset(rule)  # a text equals a text option exactly when it is in the set
            return lambda v: (
                v in texts if type(v) is str else any(_equal(v, option) for option in rule)
            )
        return lambda v: any(_equal(v, option) for option in rule)

    def k_const(self, rule: Any, _: Any) -> Test:
        return lambda v: _equal(v, rule)

    def k_anyOf(self, rule: list[Any], _: Any) -> Test:
        tests = [self.compile(s) for s in rule]

        def some(v: Any) -> bool:
            for t in tests:  # noqa: SIM110 (a loop: no generator to set up per value)
                if t(v):
                    return True
            return False

        return some

    def k_oneOf(self, rule: list[Any], _: Any) -> Test:
        tests = [self.compile(s) for s in rule]
        return lambda v: sum(t(v) for t in tests) == 1

    def k_allOf(self, rule: list[Any], _: Any) -> Test:
        tests = [self.compile(s) for s in rule]

        def every(v: Any) -> bool:
            for t in tests:  # noqa: SIM110 (a loop: no generator to set up per value)
                if not t(v):
                    return False
            return True

        return every

    def k_not(self, rule: Any, _: Any) -> Test:
        test = self.compile(rule)
        return lambda v: not test(v)

    def k_properties(self, rule: dict[str, Any], _: Any) -> Test:
        tests = {k: self.compile(s) for k, s in rule.items()}

        def test(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for k, item in v.items():
                t = tests.get(k)
                if t is not None and not t(item):
                    return False
            return True

        return test

    def k_patternProperties(self, rule: dict[str, Any], _: Any) -> Test:
        tests = [(_pattern(p), self.compile(s)) for p, s in rule.items()]
        return lambda v: (
            not isinstance(v, dict)
            or all(t(item) for p, t in tests for k, item in v.items() if p.search(k))
        )

    def k_additionalProperties(self, rule: Any, schema: dict[str, Any]) -> Test:
        known = set(schema.get("properties", {}))
        patterns = [_pattern(p) for p in schema.get("patternProperties", {})]
        test = self.compile(rule)

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for k, item in v.items():
                if k in known or (patterns and any(p.search(k) for p in patterns)):
                    continue
                if not test(item):
                    return False
            return True

        return check

    def k_propertyNames(self, rule: Any, _: Any) -> Test:
        test = self.compile(rule)
        return lambda v: not isinstance(v, dict) or all(test(k) for k in v)

    def k_required(self, rule: list[str], _: Any) -> Test:
        def test(v: Any) -> bool:
            if isinstance(v, dict):
                for k in rule:
                    if k not in v:
                        return False
            return True

        return test

    def k_dependentRequired(self, rule: dict[str, list[str]], _: Any) -> Test:
        return lambda v: (
            not isinstance(v, dict)
            or all(all(n in v for n in needs) for k, needs in rule.items() if k in v)
        )

    def k_minProperties(self, rule: int, _: Any) -> Test:
        return lambda v: not isinstance(v, dict) or len(v) >= rule

    def k_maxProperties(self, rule: int, _: Any) -> Test:
        return lambda v: not isinstance(v, dict) or len(v) <= rule

    def k_items(self, rule: Any, schema: dict[str, Any]) -> Test:
        skip = len(schema.get("prefixItems", []))
        test = self.compile(rule)

        def check(v: Any) -> bool:
            if isinstance(v, list):
                for item in v[skip:] if skip else v:
                    if not test(item):
                        return False
            return True

        return check

    def k_prefixItems(self, rule: list[Any], _: Any) -> Test:
        tests = [self.compile(s) for s in rule]
        return lambda v: (
            not isinstance(v, list) or all(t(item) for t, item in zip(tests, v, strict=False))
        )

    def k_minItems(self, rule: int, _: Any) -> Test:
        return lambda v: not isinstance(v, list) or len(v) >= rule

    def k_maxItems(self, rule: int, _: Any) -> Test:
        return lambda v: not isinstance(v, list) or len(v) <= rule

    def k_uniqueItems(self, rule: bool, _: Any) -> Test:
        if not rule:
            return _always
        return lambda v: not isinstance(v, list) or len({_key(item) for item in v}) == len(v)

    def k_minLength(self, rule: int, _: Any) -> Test:
        return lambda v: not isinstance(v, str) or len(v) >= rule

    def k_maxLength(self, rule: int, _: Any) -> Test:
        return lambda v: not isinstance(v, str) or len(v) <= rule

    def k_pattern(self, rule: str, _: Any) -> Test:
        compiled = _pattern(rule)
        return lambda v: not isinstance(v, str) or compiled.search(v) is not None

    def k_minimum(self, rule: float, _: Any) -> Test:
        return lambda v: not _is_number(v) or v >= rule

    def k_maximum(self, rule: float, _: Any) -> Test:
        return lambda v: not _is_number(v) or v <= rule

    def k_exclusiveMinimum(self, rule: float, _: Any) -> Test:
        return lambda v: not _is_number(v) or v > rule

    def k_exclusiveMaximum(self, rule: float, _: Any) -> Test:
        return lambda v: not _is_number(v) or v < rule

    def k_multipleOf(self, rule: float, _: Any) -> Test:
        def test(v: Any) -> bool:
            if not _is_number(v):
                return True
            quotient = v / rule
            return math.isfinite(quotient) and float(quotient).is_integer()

        return test


def _always(_: Any) -> bool:
    return True


def _never(v: Any) -> bool:
    return v is DYNAMIC


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


# Compiled schemas by identity; the schema object is kept so that its id stays its own.
_COMPILED: dict[int, tuple[Any, Test | None]] = {}


def is_valid(schema: Any, instance: Any) -> bool | None:
    """Whether `instance` is valid against `schema`; None when the schema uses a keyword this
    module does not know (ask jsonschema then)."""
    kept = _COMPILED.get(id(schema))
    if kept is None or kept[0] is not schema:
        try:
            test: Test | None = _Compiler(schema).compile(schema)
        except (_Unsupported, re.error, RecursionError):
            test = None
        if len(_COMPILED) > 2048:
            _COMPILED.clear()
        kept = _COMPILED[id(schema)] = (schema, test)
    if kept[1] is None:
        return None
    try:
        return kept[1](instance)
    except RecursionError:
        return None
    except (_Unsupported, re.error):  # in a `$ref` target, compiled when first reached
        _COMPILED[id(schema)] = (schema, None)
        return None
