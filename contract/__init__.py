"""The contract's vocabulary, the one room every layer may import: error codes and the error
users see, trust and capability levels, run and step states (exactly SPEC.md's names and
values), and text made valid Unicode where it enters taskplate.

It imports nothing of taskplate, so `browser/` raises a contract error without loading the
language, and any layer may lean on it. It also lends the cold path its cheap tools: `lazy_dataclass`
(dataclasses without their import cost, read by mypy as `dataclass`) and `lazy_names`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._depth import MAX_VALUE_DEPTH, capped, json_depth, value_depth
from ._files import FileRefused, read_bounded, write_whole
from ._internal import exception_summary, internal_error
from ._lazy import lazy_names
from ._text import valid_json, valid_text, valid_unicode
from ._vocabulary import (
    STEP_ERROR_CODES,
    ErrorCode,
    Level,
    RunStatus,
    StepStatus,
    TaskplateError,
    TrustLevel,
)

if TYPE_CHECKING:
    from dataclasses import dataclass as lazy_dataclass
    from dataclasses import field, replace
else:
    from ._lazy_dataclass import field, lazy_dataclass, replace

__all__ = [
    "MAX_VALUE_DEPTH",
    "STEP_ERROR_CODES",
    "ErrorCode",
    "FileRefused",
    "Level",
    "RunStatus",
    "StepStatus",
    "TaskplateError",
    "TrustLevel",
    "capped",
    "exception_summary",
    "field",
    "internal_error",
    "json_depth",
    "lazy_dataclass",
    "lazy_names",
    "read_bounded",
    "replace",
    "valid_json",
    "valid_text",
    "valid_unicode",
    "value_depth",
    "write_whole",
]
