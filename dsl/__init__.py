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
    from ._formats import format_checker, is_uri
    from ._identity import forbidden_header, identity_problems
    from ._json_schema_check import SHIPPED as META_SCHEMA_FILE
    from ._json_schema_check import flattened_meta_schema
    from ._metaschema import TEMPLATE as TEMPLATE_SCHEMA
    from ._model import PartialSuccess, Retry, Step, Template, TemplateLimits
    from ._numbers import parse_number
    from ._schema_errors import listed, violations
    from ._schema_fast import is_valid
    from ._validators import schema_failures, validator_for
    from ._values import Const, Interp, ListValue, MapValue, Single, Value, expressions, render
    from .expr import (
        FUNCTIONS,
        ExpressionError,
        cache_folder,
        evaluate,
        parse_expression,
        truthy,
        url_normalize,
    )
    from .selectors import (
        SELECTOR_KEY,
        SelectorSpan,
        selector_problem,
        selector_spans,
        with_selectors,
    )

# Public names: the TYPE_CHECKING imports above, loaded on first use: a command that needs only a
# few pays only for those. The contract's vocabulary is taskplate.contract's own: import it from
# there.
__getattr__ = lazy_names(__name__, globals())


__all__ = [
    "CASE_SCHEMA",
    "ENV_KEY",
    "FUNCTIONS",
    "MAX_CASE_FILE_BYTES",
    "META_SCHEMA_FILE",
    "SECRET_PREFIX",
    "SELECTOR_KEY",
    "TEMPLATE_SCHEMA",
    "ActionCatalog",
    "ActionSpec",
    "Case",
    "CheckResult",
    "Const",
    "Diagnostic",
    "ExpressionError",
    "Interp",
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
    "TemplateLimits",
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
    "forbidden_header",
    "format_checker",
    "format_json",
    "format_text",
    "has_errors",
    "identity_problems",
    "is_uri",
    "is_valid",
    "listed",
    "load_cases",
    "now_iso",
    "parse_expression",
    "parse_number",
    "render",
    "resolved_inputs",
    "schema_failures",
    "selector_problem",
    "selector_spans",
    "static_problems",
    "truthy",
    "url_normalize",
    "validator_for",
    "violations",
    "with_selectors",
]
