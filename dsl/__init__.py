"""taskplate's language: templates, `${{ }}` expressions, the step graph and its static checks.

Knows nothing of Playwright; actions are described to it through `ActionCatalog`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from taskplate.contract import lazy_names

if TYPE_CHECKING:
    from ._actions import ActionCatalog, ActionSpec
    from ._case_schema import CASE_SCHEMA
    from ._cases import (
        ENV_KEY,
        MAX_CASE_FILE_BYTES,
        SECRET_PREFIX,
        Case,
        case_file_data,
        case_file_of,
        check_inputs_known,
        find_case_files,
        load_cases,
        resolved_inputs,
        static_problems,
    )
    from ._checker import CheckResult, check_file, check_source
    from ._dates import fixed_clock, now_iso
    from ._devices import device_descriptor, device_names
    from ._diagnostics import Diagnostic, Severity, Span, format_json, format_text, has_errors
    from ._expr_ast import ExpressionError
    from ._expr_eval import evaluate, truthy
    from ._expr_functions import FUNCTIONS, url_normalize
    from ._expr_saved import cache_folder
    from ._expr_syntax import parse_expression
    from ._formats import format_checker, is_uri
    from ._json_schema_check import SHIPPED as META_SCHEMA_FILE
    from ._json_schema_check import flattened_meta_schema
    from ._metaschema import TEMPLATE as TEMPLATE_SCHEMA
    from ._model import Limits, PartialSuccess, Retry, Step, Template
    from ._numbers import parse_number
    from ._schema_errors import listed, violations
    from ._schema_fast import is_valid
    from ._selector_spans import SelectorSpan, selector_spans, with_selectors
    from ._values import Const, Interp, ListValue, MapValue, Single, Value, expressions, render

# Public names, loaded on first use: a command that needs only a few pays only for those. The
# contract's vocabulary is taskplate.contract's own: callers import it from there.
_LAZY: dict[str, tuple[str, str]] = {
    "ActionCatalog": ("._actions", "ActionCatalog"),
    "ActionSpec": ("._actions", "ActionSpec"),
    "CASE_SCHEMA": ("._case_schema", "CASE_SCHEMA"),
    "ENV_KEY": ("._cases", "ENV_KEY"),
    "MAX_CASE_FILE_BYTES": ("._cases", "MAX_CASE_FILE_BYTES"),
    "case_file_data": ("._cases", "case_file_data"),
    "SECRET_PREFIX": ("._cases", "SECRET_PREFIX"),
    "Case": ("._cases", "Case"),
    "case_file_of": ("._cases", "case_file_of"),
    "check_inputs_known": ("._cases", "check_inputs_known"),
    "find_case_files": ("._cases", "find_case_files"),
    "load_cases": ("._cases", "load_cases"),
    "resolved_inputs": ("._cases", "resolved_inputs"),
    "static_problems": ("._cases", "static_problems"),
    "CheckResult": ("._checker", "CheckResult"),
    "SelectorSpan": ("._selector_spans", "SelectorSpan"),
    "selector_spans": ("._selector_spans", "selector_spans"),
    "with_selectors": ("._selector_spans", "with_selectors"),
    "check_file": ("._checker", "check_file"),
    "check_source": ("._checker", "check_source"),
    "fixed_clock": ("._dates", "fixed_clock"),
    "now_iso": ("._dates", "now_iso"),
    "format_checker": ("._formats", "format_checker"),
    "is_uri": ("._formats", "is_uri"),
    "Diagnostic": ("._diagnostics", "Diagnostic"),
    "Severity": ("._diagnostics", "Severity"),
    "Span": ("._diagnostics", "Span"),
    "format_json": ("._diagnostics", "format_json"),
    "format_text": ("._diagnostics", "format_text"),
    "has_errors": ("._diagnostics", "has_errors"),
    "ExpressionError": ("._expr_ast", "ExpressionError"),
    "parse_expression": ("._expr_syntax", "parse_expression"),
    "evaluate": ("._expr_eval", "evaluate"),
    "truthy": ("._expr_eval", "truthy"),
    "FUNCTIONS": ("._expr_functions", "FUNCTIONS"),
    "url_normalize": ("._expr_functions", "url_normalize"),
    "META_SCHEMA_FILE": ("._json_schema_check", "SHIPPED"),
    "flattened_meta_schema": ("._json_schema_check", "flattened_meta_schema"),
    "TEMPLATE_SCHEMA": ("._metaschema", "TEMPLATE"),
    "Limits": ("._model", "Limits"),
    "PartialSuccess": ("._model", "PartialSuccess"),
    "Retry": ("._model", "Retry"),
    "Step": ("._model", "Step"),
    "Template": ("._model", "Template"),
    "device_descriptor": ("._devices", "device_descriptor"),
    "device_names": ("._devices", "device_names"),
    "parse_number": ("._numbers", "parse_number"),
    "listed": ("._schema_errors", "listed"),
    "violations": ("._schema_errors", "violations"),
    "is_valid": ("._schema_fast", "is_valid"),
    "Const": ("._values", "Const"),
    "Interp": ("._values", "Interp"),
    "ListValue": ("._values", "ListValue"),
    "MapValue": ("._values", "MapValue"),
    "Single": ("._values", "Single"),
    "Value": ("._values", "Value"),
    "expressions": ("._values", "expressions"),
    "render": ("._values", "render"),
    "cache_folder": ("._expr_saved", "cache_folder"),
}

__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "CASE_SCHEMA",
    "ENV_KEY",
    "FUNCTIONS",
    "MAX_CASE_FILE_BYTES",
    "META_SCHEMA_FILE",
    "SECRET_PREFIX",
    "TEMPLATE_SCHEMA",
    "ActionCatalog",
    "ActionSpec",
    "Case",
    "CheckResult",
    "Const",
    "Diagnostic",
    "ExpressionError",
    "Interp",
    "Limits",
    "ListValue",
    "MapValue",
    "PartialSuccess",
    "Retry",
    "SelectorSpan",
    "Severity",
    "Single",
    "Span",
    "Step",
    "Template",
    "Value",
    "cache_folder",
    "case_file_data",
    "case_file_of",
    "check_file",
    "check_inputs_known",
    "check_source",
    "device_descriptor",
    "device_names",
    "evaluate",
    "expressions",
    "find_case_files",
    "fixed_clock",
    "flattened_meta_schema",
    "format_checker",
    "format_json",
    "format_text",
    "has_errors",
    "is_uri",
    "is_valid",
    "listed",
    "load_cases",
    "now_iso",
    "parse_expression",
    "parse_number",
    "render",
    "resolved_inputs",
    "selector_spans",
    "static_problems",
    "truthy",
    "url_normalize",
    "violations",
    "with_selectors",
]
