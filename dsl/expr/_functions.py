"""The fixed function set of the expression language: pure, bounded, no I/O.

`FUNCTIONS` by name, gathered from one module per kind (_fn_text.py, _fn_lists.py, _fn_numbers.py,
_fn_dates.py, _fn_urls.py); every function checks its argument types and raises FunctionError.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._fn_dates import DATES
from ._fn_lists import LISTS
from ._fn_numbers import NUMBERS
from ._fn_text import TEXT
from ._fn_urls import URLS, url_normalize
from ._function import (
    MAX_LIST,
    MAX_STRING,
    Function,
    FunctionError,
    check_size,
    is_number,
    to_text,
    type_name,
)

FUNCTIONS: Mapping[str, Function] = {f.name: f for f in [*TEXT, *LISTS, *NUMBERS, *DATES, *URLS]}

__all__ = [
    "FUNCTIONS",
    "MAX_LIST",
    "MAX_STRING",
    "Function",
    "FunctionError",
    "check_size",
    "is_number",
    "to_text",
    "type_name",
    "url_normalize",
]
