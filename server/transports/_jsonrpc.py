"""What both transports check in a raw JSON-RPC message before the SDK reads it: the JSON
itself (depth, numbers too long to read), a lone surrogate escape (`"\\ud800"`, valid JSON but
not valid Unicode: the text is made valid here, where it enters), and a request's shape (its
method, its id) where the SDK would drop the message or answer the wrong code."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from taskplate.contract import json_depth, valid_unicode

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
# Deeper than this, a message is not read at all: a parse error, ours on both transports. The
# SDK's parser (pydantic-core's) stops past 201 levels with an error of its own; a call needs
# far less to carry any value a run may hold (MAX_VALUE_DEPTH, 100) in its envelope.
MAX_READ_DEPTH = 200
MAX_DIGITS = 4300  # the longest number read (Python's int limit, and the SDK parser's)
UNREADABLE = object()


class LongNumber(str):
    """A number of more than MAX_DIGITS digits, kept as its text (never a valid id)."""


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


@dataclass
class Read:
    """A raw message as JSON: `value` (UNREADABLE when it is not JSON or nests too deep), its
    lone surrogates already replaced by U+FFFD (`cleaned`), and whether a number was too long."""

    value: Any
    too_deep: bool = False
    long_number: bool = False
    cleaned: bool = False

    @property
    def readable(self) -> bool:
        return self.value is not UNREADABLE

    def text(self) -> str:
        """The message as the SDK's parser takes it (valid Unicode throughout)."""
        return json.dumps(self.value, ensure_ascii=False)


def too_deep(text: str) -> bool:
    """Whether a line nests deeper than MAX_READ_DEPTH; counting brackets first (in C) keeps
    the common line from a scan of its characters."""
    if text.count("[") + text.count("{") <= MAX_READ_DEPTH:
        return False
    return json_depth(text) > MAX_READ_DEPTH


def read(text: str | bytes) -> Read:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if json_depth(text) > MAX_READ_DEPTH:  # the same verdict on every Python and parser
        return Read(UNREADABLE, too_deep=True)
    long_number = False

    def number(digits: str) -> int | str:
        nonlocal long_number
        if len(digits.lstrip("-")) > MAX_DIGITS:
            long_number = True
            return LongNumber(digits)
        return int(digits)

    try:
        value = json.loads(text, parse_int=number)
    except RecursionError:
        return Read(UNREADABLE, too_deep=True)
    except ValueError:
        return Read(UNREADABLE)
    cleaned = False
    if _SURROGATE_ESCAPE.search(text):
        clean = valid_unicode(value)
        cleaned, value = clean is not value, clean
    return Read(value, long_number=long_number, cleaned=cleaned)


def valid_id(request_id: Any) -> bool:
    """MCP's request ids: a string or an integer (never null, a float, a boolean, …)."""
    return isinstance(request_id, str | int) and not isinstance(request_id, bool | LongNumber)


def request_id(message: Any) -> str | int | None:
    """The id to answer with: the message's own when it is a valid one, else null (JSON-RPC)."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if valid_id(found) else None


def problem(message: Any) -> str | None:
    """Why a parsed message is no JSON-RPC request or notification MCP takes, or None when it
    is one (or a response: the SDK judges those)."""
    if isinstance(message, list):
        return "batches are not part of MCP; send one message per request"
    if not isinstance(message, dict):
        return "a message is a JSON object"
    if "result" in message or "error" in message:
        return None
    if not isinstance(message.get("method"), str):
        return "a request needs a string method"
    if isinstance(message.get("id"), LongNumber):
        return f"the id has more than {MAX_DIGITS} digits, more than this server reads"
    if "id" in message and not valid_id(message["id"]):
        return (
            "a request id is a string or an integer (MCP); not null, a fraction, a boolean,"
            " an object or an array"
        )
    return None


def error(code: int, text: str, answer_id: str | int | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": answer_id, "error": {"code": code, "message": text}}


def nests_too_deep() -> dict[str, Any]:
    return error(
        PARSE_ERROR,
        f"Parse error: the message nests deeper than {MAX_READ_DEPTH} levels, more than this "
        "server reads",
    )


def judged(got: Read) -> dict[str, Any] | None:
    """The JSON-RPC error a read message calls for before the SDK sees it, or None."""
    if not got.readable:
        if got.too_deep:
            return nests_too_deep()
        return error(PARSE_ERROR, "Parse error: the message is not valid JSON")
    why = problem(got.value)
    if why is None and got.long_number:
        why = f"a number has more than {MAX_DIGITS} digits, more than this server reads"
    if why is None:
        return None
    return error(INVALID_REQUEST, f"Invalid Request: {why}", request_id(got.value))
