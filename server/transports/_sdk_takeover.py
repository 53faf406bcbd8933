"""The SDK's side of the start on stdio (`_front.py`): the lines the front read are read again
by the SDK's server, first; its answers to what the front answered already are compared with
those and dropped; and every `initialize` and `tools/list` answer the SDK gives is kept for the
next start, in the answers file of this server's fingerprint.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)

from taskplate.contract import write_whole
from taskplate.providers import WriteStream

from ._front import CACHED, RESPONSE_HEAD, Started, usual_envelope

log = logging.getLogger("taskplate.serve")


def wire_text(message: SessionMessage) -> str:
    """A message as the SDK's stdio transport writes it (without the newline)."""
    return message.message.model_dump_json(by_alias=True, exclude_unset=True)


class SdkTakeover:
    """The write stream the SDK's server answers on, after the front: `saw` is told each
    request the server reads; an answer to one the front answered is compared and dropped;
    `listed` is set once the client has the tool list (the moment to warm up)."""

    def __init__(self, inner: WriteStream[SessionMessage], started: Started) -> None:
        self.inner = inner
        self.started = started
        # request id -> method and its 2026-07-28 envelope's version, of those kept
        self.asked: dict[str | int, tuple[str, str | None]] = {}
        self.version: str | None = None  # negotiated by the SDK's initialize answer
        self.listed = anyio.Event()
        if any(method == "tools/list" for method, _ in started.answered.values()):
            self.listed.set()

    def saw(self, item: SessionMessage | Exception) -> None:
        if not isinstance(item, SessionMessage) or not isinstance(item.message, JSONRPCRequest):
            return
        request, method = item.message, item.message.method
        modern = usual_envelope(request.params)
        if method == "initialize" or (method == "tools/list" and request.params in (None, {})):
            self.asked.setdefault(request.id, (method, None))
        elif method in ("server/discover", "tools/list") and modern is not None:
            self.asked.setdefault(request.id, (method, modern))

    async def send(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id in self.asked:
            method, modern = self.asked.pop(message.id)
            text = wire_text(item)
            self.keep(method, message.id, text, modern)
            if method == "tools/list":
                self.listed.set()
            front = self.started.answered.pop(message.id, None)
            if front is not None and front[0] == method:
                if front[1] != f"{text}\n".encode():
                    log.warning(
                        "the start answered %s unlike the server; kept its answer now", method
                    )
                return  # the client has this answer already
        await self.inner.send(item)

    def keep(self, method: str, request_id: str | int, text: str, modern: str | None) -> None:
        """The SDK's answer, kept for the next start when it is a result (`modern`: the
        version of the 2026-07-28 envelope it answered, else the negotiated one)."""
        head = f"{RESPONSE_HEAD}{json.dumps(request_id, ensure_ascii=False)},"
        if not text.startswith(head) or method not in CACHED:
            return
        rest = text[len(head) :]
        if method == "initialize":
            result = json.loads(text).get("result")
            self.version = result.get("protocolVersion") if isinstance(result, dict) else None
        version = modern or self.version
        if version is None or self.started.path is None or not rest.startswith('"result":'):
            return
        kept = self.started.kept
        if kept.get("fingerprint") != self.started.code:
            kept.clear()
            kept.update(
                fingerprint=self.started.code,
                handshake=list(HANDSHAKE_PROTOCOL_VERSIONS),
                latest=LATEST_HANDSHAKE_VERSION,
                modern=list(MODERN_PROTOCOL_VERSIONS),
                answers={},
            )
        answers: dict[str, dict[str, str]] = kept.setdefault("answers", {})
        if answers.setdefault(method, {}).get(version) == rest:
            return
        answers[method][version] = rest
        try:
            write_whole(self.started.path, json.dumps(kept).encode())
        except OSError as error:  # a read-only cache: the next start is as slow as this one
            log.info("cannot keep the answers of the start in %s: %s", self.started.path, error)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> SdkTakeover:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()
