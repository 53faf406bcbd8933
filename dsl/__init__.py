"""taskplate's language: templates, `${{ }}` expressions, the step graph and its static checks.

Knows nothing of Playwright; actions are described to it through `ActionCatalog`.
"""

from ._actions import ActionCatalog, ActionSpec
from ._checker import CheckResult, check_file, check_source
from ._contract import (
    STEP_ERROR_CODES,
    ErrorCode,
    Level,
    RunStatus,
    StepStatus,
    TaskplateError,
    TrustLevel,
)
from ._diagnostics import Diagnostic, Severity, Span, format_json, format_text, has_errors
from ._expr_ast import ExpressionError, parse_expression
from ._expr_eval import evaluate, truthy
from ._expr_functions import FUNCTIONS
from ._metaschema import TEMPLATE as TEMPLATE_SCHEMA
from ._model import Limits, PartialSuccess, Retry, Step, Template
from ._schema_errors import listed, violations
from ._values import Value, expressions, render

__all__ = [
    "FUNCTIONS",
    "STEP_ERROR_CODES",
    "TEMPLATE_SCHEMA",
    "ActionCatalog",
    "ActionSpec",
    "CheckResult",
    "Diagnostic",
    "ErrorCode",
    "ExpressionError",
    "Level",
    "Limits",
    "PartialSuccess",
    "Retry",
    "RunStatus",
    "Severity",
    "Span",
    "Step",
    "StepStatus",
    "TaskplateError",
    "Template",
    "TrustLevel",
    "Value",
    "check_file",
    "check_source",
    "evaluate",
    "expressions",
    "format_json",
    "format_text",
    "has_errors",
    "listed",
    "parse_expression",
    "render",
    "truthy",
    "violations",
]
