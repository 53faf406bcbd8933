"""A recording's shape checked before it is replayed: the HAR 1.2 fields that taskplate and
Playwright's `route_from_har` read, each of the type they read it as, base64 bodies that decode,
and what taskplate keeps in `log._taskplate`. Anything else a HAR holds is free.

Read by hand, not by jsonschema, which takes seconds on a recording of thousands of requests.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

_KIND = {dict: "an object", list: "an array", str: "a string", int: "a whole number"}


class _Wrong(Exception):
    """Where the recording is wrong, and how."""


def shape_problem(har: Any) -> str | None:
    """Where `har` is not a recording taskplate can replay, and how, on one line (the first
    place found); None when it is one."""
    try:
        if not isinstance(har, dict):
            raise _Wrong("the file: an object expected")
        log = _field(har, "log", dict, "", required=True)
        for index, entry in enumerate(_field(log, "entries", list, "log", required=True)):
            _entry(entry, f"log/entries/{index}")
        made = _field(log, "_taskplate", dict, "log")
        if made is not None:
            _made(made, "log/_taskplate")
    except _Wrong as wrong:
        return str(wrong)
    return None


def _field(parent: dict[str, Any], key: str, kind: type, where: str, required: bool = False) -> Any:
    """`parent[key]`, of `kind`; None when it is not there and need not be."""
    at = f"{where}/{key}" if where else key
    if key not in parent:
        if required:
            raise _Wrong(f"{where or 'the file'}: {key!r} is missing")
        return None
    value = parent[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _Wrong(f"{at}: {_KIND[kind]} expected")
    return value


def _entry(entry: Any, where: str) -> None:
    if not isinstance(entry, dict):
        raise _Wrong(f"{where}: an object expected")
    _field(entry, "startedDateTime", str, where)
    request = _field(entry, "request", dict, where, required=True)
    at = f"{where}/request"
    _field(request, "method", str, at, required=True)
    _field(request, "url", str, at, required=True)
    _headers(request, at, required=False)
    posted = _field(request, "postData", dict, at)
    if posted is not None:
        _body(posted, f"{at}/postData")
    response = _field(entry, "response", dict, where, required=True)
    at = f"{where}/response"
    status = _field(response, "status", int, at, required=True)
    if not -1 <= status <= 999:  # -1: a request that failed as it was recorded (Playwright's)
        raise _Wrong(f"{at}/status: {status} is no HTTP status")
    _headers(response, at, required=True)
    _field(response, "redirectURL", str, at)
    content = _field(response, "content", dict, at)
    if content is not None:
        _body(content, f"{at}/content")


def _headers(message: dict[str, Any], where: str, required: bool) -> None:
    for index, header in enumerate(_field(message, "headers", list, where, required) or []):
        at = f"{where}/headers/{index}"
        if not isinstance(header, dict):
            raise _Wrong(f"{at}: an object expected")
        _field(header, "name", str, at, required=True)
        _field(header, "value", str, at, required=True)


def _body(body: dict[str, Any], where: str) -> None:
    """A request's or response's body: embedded, as text or base64."""
    if "_file" in body:
        raise _Wrong(f"{where}: a body in another file (_file); record with bodies embedded")
    text = _field(body, "text", str, where)
    if _field(body, "encoding", str, where) == "base64":
        try:
            base64.b64decode(text or "", validate=True)
        except binascii.Error:
            raise _Wrong(f"{where}/text: not base64") from None


def _made(made: dict[str, Any], where: str) -> None:
    """What taskplate keeps: the template and case, the model's answers, the providers' calls."""
    _field(made, "template", str, where)
    _field(made, "case", str, where)
    for index, answer in enumerate(_field(made, "answers", list, where) or []):
        if not isinstance(answer, dict):
            raise _Wrong(f"{where}/answers/{index}: an object expected")
    for index, call in enumerate(_field(made, "calls", list, where) or []):
        if not isinstance(call, dict):
            raise _Wrong(f"{where}/calls/{index}: an object expected")
        _field(call, "error", dict, f"{where}/calls/{index}")
