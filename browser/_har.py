"""A run's network traffic kept as HAR and played back: `dsl record` records every context a run
opens (Playwright's `record_har_path`, bodies embedded), `dsl test` serves every request from
the recording (`route_from_har`, anything not recorded aborted), so a case runs offline.

Knows no templates and no cases; secrets are masked by `masked_har` before a recording is kept.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from playwright.async_api import BrowserContext, Route

from taskplate.contract import ErrorCode, FileRefused, TaskplateError, read_bounded, write_whole

from ._har_shape import shape_problem

MASK = "__taskplate_secret__"  # where a secret's value was; offline, the secret *is* this
MAX_RECORDING_BYTES = 128 * 1024 * 1024  # refused before it is read: docs/testing.md
MAX_RECORDING_DEPTH = 256  # levels of JSON; a recorded value is at most 200 (evaluate's bound)


class HarRecording:
    """Records each context a run opens into its own HAR file in `folder`; `merged` joins them
    once every context is closed (Playwright writes a context's HAR when it closes)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def context_options(self) -> dict[str, Any]:
        self.count += 1
        path = self.folder / f"context-{self.count}.har"
        return {"record_har_path": str(path), "record_har_content": "embed"}

    async def attach(self, context: BrowserContext) -> None:
        return None

    def merged(self, more: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        """One HAR of every context's entries and `more` (plain HTTP's), in the order they
        started."""
        logs = [read_har(path)["log"] for path in sorted(self.folder.glob("context-*.har"))]
        entries = sorted(
            [*(entry for log in logs for entry in log.get("entries", [])), *more],
            key=lambda entry: str(entry.get("startedDateTime", "")),
        )
        creator = logs[0]["creator"] if logs else {"name": "taskplate", "version": "0"}
        return {"log": {"version": "1.2", "creator": creator, "pages": [], "entries": entries}}


class RecordedAnswers:
    """A recording's responses by request (method, URL, body): the n-th time a request is made
    it gets the n-th answer recorded for it (the last again after that). One mechanism for the
    browser's replay and plain HTTP's (stdlib/web/_har.py)."""

    def __init__(self, entries: Iterable[dict[str, Any]]) -> None:
        self.by_request: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        self._served: dict[tuple[str, str, str], int] = {}
        for entry in entries:
            request = entry["request"]
            text = (request.get("postData") or {}).get("text", "")
            key = (request["method"], request["url"], text)
            self.by_request.setdefault(key, []).append(entry["response"])

    @staticmethod
    def key(method: str, url: str, body: bytes | None) -> tuple[str, str, str]:
        return (method, url, body.decode("utf-8", "replace") if body else "")

    def next(self, key: tuple[str, str, str]) -> dict[str, Any] | None:
        """The response for this request's next asking, or None when none was recorded."""
        answers = self.by_request.get(key)
        if not answers:
            return None
        index = self._served.get(key, 0)
        self._served[key] = index + 1
        return answers[min(index, len(answers) - 1)]


def response_body(response: dict[str, Any]) -> bytes:
    """A HAR response's body as it was sent (base64 when the recording says so)."""
    content = response.get("content", {})
    text = content.get("text", "")
    if content.get("encoding") == "base64":
        return base64.b64decode(text)
    return str(text).encode("utf-8")


class HarReplay:
    """Serves every context's requests from one HAR; a request it does not hold is aborted, so
    nothing reaches the network.

    Playwright's `route_from_har` serves it (redirects included), but it answers the same
    request made twice (a login form fetched twice, each with its own token) with the same
    entry; such requests are answered here in the order they were recorded."""

    def __init__(self, path: Path, har: dict[str, Any] | None = None) -> None:
        """`har`: the file's JSON when the caller read it already."""
        self.path = path
        self._repeated = RecordedAnswers((har or read_har(path))["log"]["entries"])
        self._repeated.by_request = {  # only requests made again with another answer
            key: answers
            for key, answers in self._repeated.by_request.items()
            if len({json.dumps(a, sort_keys=True) for a in answers}) > 1
            and not any(300 <= a.get("status", 0) < 400 for a in answers)
        }

    def context_options(self) -> dict[str, Any]:
        return {}

    async def attach(self, context: BrowserContext) -> None:
        await context.route_from_har(self.path, not_found="abort")
        if self._repeated.by_request:  # routes added later are asked first
            await context.route("**/*", self._in_order)

    async def _in_order(self, route: Route) -> None:
        request = route.request
        key = RecordedAnswers.key(request.method, request.url, request.post_data_buffer)
        response = self._repeated.next(key)
        if response is None:
            await route.fallback()
            return
        await route.fulfill(
            status=response["status"], headers=_headers(response), body=response_body(response)
        )


def _headers(response: dict[str, Any]) -> dict[str, str]:
    """A response's headers as `route.fulfill` takes them: one Set-Cookie, lines joined."""
    out: dict[str, str] = {}
    for header in response.get("headers", []):
        name, value = header["name"], header["value"]
        if name.lower() == "set-cookie" and "set-cookie" in out:
            out["set-cookie"] += "\n" + value
        else:
            out["set-cookie" if name.lower() == "set-cookie" else name] = value
    return out


def read_har(path: Path) -> dict[str, Any]:
    """A recording's JSON, checked: a regular file of at most MAX_RECORDING_BYTES, UTF-8 JSON
    at most MAX_RECORDING_DEPTH levels deep, of the shape `shape_problem` checks; else a clear
    error naming the file and, in the HAR, the place."""
    try:
        data = json.loads(read_bounded(path, MAX_RECORDING_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{path}: the recording is missing",
            "Record the case again with `dsl record`.",
        ) from None
    except OSError as exc:
        raise TaskplateError(
            ErrorCode.INVALID_PARAMETER,
            f"{path}: cannot read the recording ({exc.strerror or exc})",
            "Check the recording's file and its permissions.",
        ) from None
    except FileRefused as exc:
        raise _not_har(path, str(exc)) from None
    except UnicodeDecodeError:
        raise _not_har(path, "not UTF-8 text") from None
    except RecursionError:
        raise _not_har(path, f"nested more than {MAX_RECORDING_DEPTH} levels deep") from None
    except ValueError as exc:
        raise _not_har(path, f"not JSON ({exc})") from None
    problem = _depth_problem(data) or shape_problem(data)
    if problem:
        raise _not_har(path, problem)
    har: dict[str, Any] = data
    return har


def _not_har(path: Path, problem: str) -> TaskplateError:
    return TaskplateError(
        ErrorCode.INVALID_PARAMETER,
        f"{path}: not a HAR recording: {problem}",
        "Record the case again with `dsl record`.",
    )


def _depth_problem(data: Any) -> str | None:
    """Deeper than MAX_RECORDING_DEPTH (found without recursion: a deep value breaks no stack)."""
    level: list[Any] = [data]
    for _ in range(MAX_RECORDING_DEPTH):
        level = [
            inner
            for value in level
            if isinstance(value, dict | list)
            for inner in (value.values() if isinstance(value, dict) else value)
        ]
        if not level:
            return None
    return f"nested more than {MAX_RECORDING_DEPTH} levels deep"


def masked_har(har: Any, secrets: list[str]) -> Any:
    """The HAR with every secret's value (as typed, URL-encoded, JSON-escaped) replaced by MASK
    in every text: URLs, headers, cookies, request and response bodies."""
    forms = sorted(
        {
            form
            for secret in secrets
            if secret
            for form in (
                secret,
                quote(secret, safe=""),
                quote_plus(secret),
                json.dumps(secret)[1:-1],
            )
        },
        key=len,
        reverse=True,
    )
    if not forms:
        return har

    def mask(value: Any) -> Any:
        if isinstance(value, str):
            for form in forms:
                value = value.replace(form, MASK)
            return value
        if isinstance(value, list):
            return [mask(item) for item in value]
        if isinstance(value, dict):
            return {key: mask(item) for key, item in value.items()}
        return value

    return mask(har)


def write_har(har: Any, path: Path) -> None:
    write_whole(path, json.dumps(har, ensure_ascii=False).encode("utf-8"))
