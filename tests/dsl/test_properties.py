"""Property-based tests: whatever YAML or expression comes in, the checker answers with
diagnostics and the evaluator with a value or an ExpressionError; nothing else escapes."""

from __future__ import annotations

import json
import math
import os
import time
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplate.dsl import ExpressionError, check_source, evaluate, parse_expression
from taskplate.dsl._types import from_schema
from taskplate.dsl.expr._infer import ExprScope, infer
from taskplate.stdlib import REGISTRY

SETTINGS = settings(
    max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

TOKENS = [
    "inputs",
    "steps",
    "item",
    "index",
    "run",
    ".",
    "urls",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    "?",
    "!",
    "-",
    "+",
    "*",
    "/",
    "%",
    "==",
    "!=",
    "<",
    ">=",
    "&&",
    "||",
    "in",
    "null",
    "true",
    "0",
    "1",
    "2.5",
    "'a'",
    '"b"',
    "'\\\\d+'",
    "length",
    "join",
    "split",
    "regexMatch",
    "format",
    "fromJson",
    "toJson",
    "__class__",
    "__globals__",
    "__dict__",
    "keys",
    "default",
    "min",
    "round",
    "urlJoin",
    "replace",
    "unique",
    "flatten",
    "'{0}'",
    "x",
    "'{'",
    "'}}'",
    # Large numbers and costly functions, so that bounds are reached.
    "1e308",
    "1e400",
    "-30000000",
    "99999999999999999999999999",
    "toNumber",
    "regexReplace",
    "parseDate",
    "globMatch",
    "map",
    "inputs.big",
    "inputs.long",
]
SCOPE: dict[str, Any] = {
    "inputs": {
        "urls": ["https://a.test", "b"],
        "n": 2,
        "s": "text",
        "big": 10**300,
        "long": "9" * 5000,
    },
    "steps": {"info": {"title": "T"}},
    "item": {"k": [1, 2]},
    "index": 0,
    "run": {"runId": "run_1"},
}
JSON = (int, float, str, bool, type(None), list, dict)

expressions = st.one_of(
    st.lists(st.sampled_from(TOKENS), min_size=1, max_size=25).map(" ".join),
    st.text(max_size=60),
)


def _is_json(value: Any) -> bool:
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, JSON)


@SETTINGS
@given(expressions)
def test_any_expression_parses_evaluates_and_types_or_fails_cleanly(text: str) -> None:
    try:
        node = parse_expression(text)
    except ExpressionError as exc:
        assert exc.message and 0 <= exc.start < exc.end
        return
    began = time.process_time()
    try:
        value = evaluate(node, SCOPE)
    except ExpressionError as exc:
        assert exc.message
    else:
        assert _is_json(value), value
    assert time.process_time() - began < 0.5, text  # refused within its bounds, or quick
    scope = ExprScope({"inputs": from_schema({"type": "object"}), "item": from_schema({})}, {})
    infer(node, scope)


@SETTINGS
@given(st.text(max_size=300))
def test_any_text_gets_diagnostics_never_an_exception(text: str) -> None:
    result = check_source(text, "random.yaml", REGISTRY)
    assert all(d.rule and d.message and d.span.line >= 1 for d in result.diagnostics)


TEMPLATE_KEYS = [
    "template",
    "version",
    "steps",
    "inputs",
    "outputs",
    "output",
    "trust",
    "limits",
    "partialSuccess",
    "mode",
    "session",
    "id",
    "action",
    "with",
    "forEach",
    "as",
    "collect",
    "when",
    "needs",
    "retry",
    "timeoutMs",
    "onError",
    "tab",
    "concurrency",
    "properties",
    "type",
    "url",
    "ms",
    "selector",
    "allowed",
    "threshold",
    "keep",
]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**7),
    st.floats(allow_nan=False),
    st.sampled_from(
        [
            "navigate",
            "wait",
            "set",
            "evaluate",
            "1.0.0",
            "t",
            "local",
            "remote",
            "new",
            "object",
            "array",
            "${{ inputs.urls }}",
            "${{ steps.a.x }}",
            "${{ 1 + }}",
            "${{ item }}",
            "a",
        ]
    ),
    expressions.map(lambda e: "${{ " + e + " }}"),
)
documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(TEMPLATE_KEYS), children, max_size=6),
    ),
    max_leaves=40,
)


@SETTINGS
@given(documents)
def test_any_template_shaped_document_gets_diagnostics_never_an_exception(doc: Any) -> None:
    text = yaml.safe_dump(doc, sort_keys=False)
    result = check_source(text, "random.yaml", REGISTRY)
    for d in result.diagnostics:
        assert d.rule and d.message
        json.dumps(d.to_json())


def test_evaluation_never_reads_the_environment() -> None:
    os.environ["TASKPLATE_SECRET_PROBE"] = "leak"
    try:
        for text in ("TASKPLATE_SECRET_PROBE", "inputs.TASKPLATE_SECRET_PROBE", "toJson(inputs)"):
            try:
                value = evaluate(parse_expression(text), {"inputs": {}})
            except ExpressionError:
                continue
            assert "leak" not in json.dumps(value)
    finally:
        del os.environ["TASKPLATE_SECRET_PROBE"]
