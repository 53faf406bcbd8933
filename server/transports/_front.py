"""The start of `dsl serve` on stdio: the server answers `initialize` and `tools/list` while the
MCP SDK still loads (about 1.7 s of CPU, mostly mcp_types' pydantic models), then hands the
stream to the SDK's server with every line it read.

The answers are the SDK's own, kept: `_sdk_takeover.py` keeps each `initialize`,
`server/discover` and `tools/list` answer the SDK's server gives (by protocol version, with the
SDK's lists of versions) in a file of the cache folder, valid for one fingerprint of the code
(taskplate's files, the SDK's and pydantic's versions, the Python, the options and TASKPLATE_*
settings but the data home's and the template folders'). With no kept answer (a first
start after an install or an upgrade), the front answers nothing and the SDK answers
everything, and its answers are kept for the next start. Whatever the front answered is
answered again by the SDK after the hand-over, so the connection's state (the client's
capabilities, the negotiated version) is the SDK's; that second answer is compared with the
first and dropped (`_sdk_takeover.SdkTakeover`).

The front answers only what it is sure of: a first line that is a well-formed `initialize`
whose params have the shape real clients send, then `tools/list` without params; or, on
2026-07-28 (no handshake, no state), `server/discover` and `tools/list` in an envelope of that
shape. Anything else is left, in order, to the SDK; after anything it does not understand it
answers nothing more. This module imports nothing of the SDK, and little at all.
"""

from __future__ import annotations

import gc
import importlib
import json
import logging
import os
import select
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._start_kept import answers_file, kept_answers

RESPONSE_HEAD = '{"jsonrpc":"2.0","id":'
CACHED = ("initialize", "server/discover", "tools/list")
# 2026-07-28's per-request envelope (params._meta), each key without its prefix
ENVELOPE = "io.modelcontextprotocol/"
_CLIENT_INFO = {"name", "version", "title", "description"}
# A client capability the front lets through: its keys, each holding a JSON object (or, for
# roots' listChanged, a boolean). Anything else is left to the SDK's validation.
_CAPABILITIES: dict[str, set[str] | None] = {
    "roots": {"listChanged"},
    "sampling": {"context", "tools"},
    "elicitation": {"form", "url"},
    "experimental": None,  # any names, each an object
}
READ_BYTES = 64 * 1024
log = logging.getLogger("taskplate.serve")


def negotiated(requested: Any, kept: dict[str, Any]) -> str | None:
    """The version the SDK negotiates for `requested` (as kept with its answers), or None."""
    versions, latest = kept.get("handshake"), kept.get("latest")
    if not isinstance(versions, list) or not isinstance(latest, str):
        return None
    return requested if requested in versions else latest


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a key given twice")
    return found


def plain(line: bytes) -> dict[str, Any] | None:
    """A line as a JSON-RPC message the front may look at, or None: not strict UTF-8, an
    escape (the SDK's reader judges those), a key given twice, not a JSON-RPC 2.0 object."""
    if b"\\u" in line:
        return None
    try:
        message = json.loads(line.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    if not set(message) <= {"jsonrpc", "id", "method", "params"}:
        return None
    if not isinstance(message.get("method"), str):
        return None
    if "id" in message and not valid_id(message["id"]):
        return None
    return message


def valid_id(found: Any) -> bool:
    if isinstance(found, bool):
        return False
    return isinstance(found, str) or (isinstance(found, int) and abs(found) < 2**53)


def usual_initialize(params: Any) -> bool:
    """Whether `initialize` params have the shape clients send (every such params the SDK
    takes: tests/server/test_front.py); anything else is for the SDK to judge."""
    if not isinstance(params, dict) or set(params) != {
        "protocolVersion",
        "capabilities",
        "clientInfo",
    }:
        return False
    info, capabilities = params["clientInfo"], params["capabilities"]
    if not isinstance(params["protocolVersion"], str) or not isinstance(info, dict):
        return False
    if not {"name", "version"} <= set(info) <= _CLIENT_INFO:
        return False
    if not all(isinstance(value, str) for value in info.values()):
        return False
    return isinstance(capabilities, dict) and all(
        _usual_capability(name, value) for name, value in capabilities.items()
    )


def usual_envelope(params: Any) -> str | None:
    """The protocol version of 2026-07-28 params that are an envelope of the usual shape and
    nothing else (`{"_meta": {protocolVersion, clientCapabilities, clientInfo}}`, the names
    prefixed), or None: anything else is for the SDK to judge."""
    meta = params.get("_meta") if isinstance(params, dict) and set(params) == {"_meta"} else None
    if not isinstance(meta, dict) or set(meta) != {
        f"{ENVELOPE}{key}" for key in ("protocolVersion", "clientCapabilities", "clientInfo")
    }:
        return None
    version, info = meta[f"{ENVELOPE}protocolVersion"], meta[f"{ENVELOPE}clientInfo"]
    capabilities = meta[f"{ENVELOPE}clientCapabilities"]
    usual = usual_initialize(
        {"protocolVersion": version, "capabilities": capabilities, "clientInfo": info}
    )
    return version if usual else None


def _usual_capability(name: str, value: Any) -> bool:
    if name not in _CAPABILITIES or not isinstance(value, dict):
        return False
    keys = _CAPABILITIES[name]
    if keys is not None and not set(value) <= keys:
        return False
    return all(
        isinstance(inner, bool) if key == "listChanged" else isinstance(inner, dict)
        for key, inner in value.items()
    )


def response(request_id: str | int, rest: str) -> bytes:
    """The SDK's response line for `request_id`, `rest` being what follows the id."""
    return f"{RESPONSE_HEAD}{json.dumps(request_id, ensure_ascii=False)},{rest}\n".encode()


class Started:
    """What the front did, for the hand-over: the bytes it read (the SDK reads them first),
    the requests it answered (id -> method and the line sent), the version it negotiated,
    whether stdin ended with nothing left to answer (`finished`), and the kept answers
    (`kept`, from `path`, for the fingerprint `code`; no `path`: nothing is kept, as for a
    server started in-process). A plain class: `dataclasses` costs the start its import."""

    def __init__(
        self, path: Path | None = None, code: str = "", kept: dict[str, Any] | None = None
    ) -> None:
        self.path, self.code, self.kept = path, code, kept or {}
        self.read = bytearray()
        self.answered: dict[str | int, tuple[str, bytes]] = {}
        self.version: str | None = None
        self.era: str | None = None  # "modern" once a 2026-07-28 request was answered
        self.finished = False


class Front:
    """Reads stdin while the SDK loads; answers what the kept answers hold."""

    def __init__(self, started: Started, fd: int = 0, out: int = 1) -> None:
        self.started = started
        self.fd, self.out = fd, out
        self.open = bool(started.kept)  # answering: until a line it does not understand
        self.owed = False  # a line read that the SDK must answer
        self.lines = self.requests = 0

    def serve(self, loaded: int) -> None:
        """Until `loaded` (a file descriptor) is readable and stdin has nothing more at hand,
        or stdin ends with nothing owed."""
        start, pending = self.started, b""
        while True:
            ready, _, _ = select.select([self.fd, loaded], [], [])
            if self.fd not in ready:  # loaded, and nothing more to read
                return
            data = os.read(self.fd, READ_BYTES)
            if not data:
                start.finished = not self.owed and not pending
                if not start.finished:
                    select.select([loaded], [], [])
                return
            start.read += data
            if b"\r" in data:  # the SDK's reader ends lines there too
                self.open = False
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                self.look_at(line)

    def look_at(self, line: bytes) -> None:
        self.lines += 1
        message = plain(line)
        if message is None:
            self.open, self.owed = False, True
            return
        if "id" not in message:
            return  # a notification: nothing to answer
        answer = self.answer(message) if self.open else None
        self.requests += 1
        if answer is None:
            self.owed = True
            if message["method"] == "initialize" or self.started.version is None:
                self.open = False
            return
        sent = 0
        while sent < len(answer):  # a pipe may take a long line in parts
            sent += os.write(self.out, answer[sent:])
        self.started.answered[message["id"]] = (message["method"], answer)

    def answer(self, message: dict[str, Any]) -> bytes | None:
        """The kept answer to `message`, or None. The first request decides the era, as in
        the SDK: an `initialize` (the handshake; then `tools/list` without params), or a
        request in a 2026-07-28 envelope (then `server/discover` and `tools/list`, each in
        one; those versions keep no state between requests)."""
        start, method = self.started, message["method"]
        params: Any = message.get("params")
        if message["id"] in start.answered:
            return None
        if method == "initialize" and self.lines == 1:
            if not usual_initialize(params):
                return None
            version = negotiated(params["protocolVersion"], start.kept)
            if self.kept(method, version) is not None:
                start.version = version
            return self.kept_answer(message, version)
        if self.requests == 0 or start.era == "modern":
            version = usual_envelope(params)
            if method not in ("server/discover", "tools/list") or version not in self.modern:
                return None
            start.era, start.version = "modern", version
            return self.kept_answer(message, version)
        if method == "tools/list" and start.era is None and message.get("params", {}) == {}:
            return self.kept_answer(message, start.version)
        return None

    @property
    def modern(self) -> list[str]:
        versions = self.started.kept.get("modern")
        return versions if isinstance(versions, list) else []

    def kept(self, method: str, version: str | None) -> str | None:
        answers: dict[str, dict[str, str]] = self.started.kept.get("answers", {})
        return answers.get(method, {}).get(version or "")

    def kept_answer(self, message: dict[str, Any], version: str | None) -> bytes | None:
        rest = self.kept(message["method"], version)
        return None if rest is None else response(message["id"], rest)


def start_on_stdio(argv: Sequence[str], modules: Sequence[str]) -> Started:
    """Answer what the front can while `modules` are imported; answers once they are, or once
    stdin ends with nothing left to answer (`Started.finished`: the caller ends then).

    The import runs in a thread: it is the one piece of the start that cannot wait for stdin
    (a module's code runs to its end), and the answers cannot wait for it. Its errors are
    raised here."""
    path, code = answers_file(argv)
    started = Started(path, code, kept_answers(path, code))
    loaded_r, loaded_w = os.pipe()
    failed: list[BaseException] = []

    def load() -> None:
        collecting = gc.isenabled()
        gc.disable()  # as `dsl` does while a command's modules load (cli/main.py)
        try:
            for module in modules:
                importlib.import_module(module)
        except BaseException as error:  # raised again in the main thread
            failed.append(error)
        finally:
            if collecting:
                gc.freeze()
                gc.enable()
            os.write(loaded_w, b".")

    # Neither end of the pipe is closed: the thread may still write after stdin ended.
    threading.Thread(target=load, name="taskplate-import", daemon=True).start()
    Front(started).serve(loaded_r)
    if started.answered:
        log.info("%d requests answered before the SDK was loaded", len(started.answered))
    if failed and not started.finished:
        raise failed[0]
    return started
