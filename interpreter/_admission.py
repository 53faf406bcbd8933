"""Admission limits on what a caller sends: the size of inputs and of any URL in them.

Checked before anything is stored or run; never looks at what the values mean beyond that.
"""

from __future__ import annotations

import json
import re
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError

MAX_URL_BYTES = 8192
# a value that names a scheme is a URL: http://…, file:///…, data:…, javascript:…
_URL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*://|(?:data|javascript|blob|about):)")


def admit(value: Any, max_bytes: int, what: str = "inputs") -> None:
    """INVALID_PARAMETER when `value` is larger than `max_bytes` as JSON, or holds a URL longer
    than MAX_URL_BYTES."""
    size = len(json.dumps(value, ensure_ascii=False, default=str).encode())
    if size > max_bytes:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{what} are {size} bytes; the limit is maxInputBytes ({max_bytes})",
            "Send less: split the work into several calls (get_runtime_profile shows the limit).",
            {"bytes": size, "maxInputBytes": max_bytes},
        )
    for pointer, text in _strings(value):
        length = len(text.encode())
        if length > MAX_URL_BYTES and _URL.match(text):
            raise TaskplateError(
                ErrorCode.INVALID_PARAMETER,
                f"the URL at {what}{pointer or '/'} is {length} bytes; URLs may be at most "
                f"{MAX_URL_BYTES}",
                "Shorten the URL (browsers and servers refuse longer ones).",
                {"pointer": pointer or "/", "bytes": length, "maxUrlBytes": MAX_URL_BYTES},
            )


def _strings(value: Any) -> list[tuple[str, str]]:
    """Every string in a JSON value with its JSON pointer (iterative: depth is the caller's)."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        pointer, item = stack.pop()
        if isinstance(item, str):
            found.append((pointer, item))
        elif isinstance(item, dict):
            stack.extend((f"{pointer}/{_escape(str(k))}", v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{pointer}/{i}", v) for i, v in enumerate(item))
    return found


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
