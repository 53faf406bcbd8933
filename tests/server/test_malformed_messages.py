"""Malformed JSON-RPC gets the error JSON-RPC 2.0 names for it, over stdio and over HTTP, and
the connection goes on serving: never a dropped message and a client left waiting."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.server.conftest import Served
from tests.server.wire import ACCEPT, HttpWire, parse_body, stdio_wire

pytestmark = pytest.mark.anyio


def deep_call(depth: int, request_id: int) -> bytes:
    inputs = "[" * depth + "]" * depth
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call","params":{{"name":'
        f'"run_task_template","arguments":{{"templateId":"flow","inputs":{inputs}}}}}}}'
    ).encode()


BAD_IDS = ("{}", "[1]", "1.5", "true", "null", '{"a":1}')
CASES = [  # (line, expected code, expected id)
    (b"not json", -32700, None),
    (b'{"jsonrpc":"2.0","id":5}', -32600, 5),
    (b'{"jsonrpc":"2.0","id":"six","method":6}', -32600, "six"),
    (b"[1, 2]", -32600, None),
    (deep_call(199, 7), -32700, None),  # deeper than MAX_READ_DEPTH with its envelope
    (deep_call(5000, 8), -32700, None),  # deeper than any parser here takes
    # ids MCP does not take: the SDK's parser read these as notifications and dropped them
    *((f'{{"jsonrpc":"2.0","id":{i},"method":"ping"}}'.encode(), -32600, None) for i in BAD_IDS),
    (b'{"jsonrpc":"2.0","id":%s,"method":"ping"}' % (b"1" * 5000), -32600, None),
    (b'{"jsonrpc":"2.0","id":10,"method":"ping","params":{"n":%s}}' % (b"9" * 5000), -32600, 10),
]


async def test_malformed_lines_are_answered_over_stdio(home: Path) -> None:
    async with stdio_wire(home, "2025-11-25") as wire:
        await wire.start()
        for line, code, request_id in CASES:
            await wire.write(line)
            with anyio.fail_after(20):
                answer = await wire.answer()
            assert answer["error"]["code"] == code and answer["id"] == request_id, (
                line[:60],
                answer,
            )
        shallow = await wire.request(
            "tools/call",
            {"name": "run_task_template", "arguments": {"templateId": "flow", "inputs": [[[]]]}},
        )
        assert shallow["result"]["structuredContent"]["errorCode"] == "INVALID_PARAMETER"
        assert "result" in await wire.request("ping")  # still serving


async def test_a_lone_surrogate_on_the_wire_is_read_as_u_fffd_over_stdio(home: Path) -> None:
    """`"\\ud800"` is valid JSON but not valid Unicode: read as U+FFFD where it enters, so the
    method is unknown (-32601) and an argument is answered like any other text."""
    async with stdio_wire(home, "2025-11-25") as wire:
        await wire.start()
        await wire.write(rb'{"jsonrpc":"2.0","id":9,"method":"pi\ud800ng"}')
        with anyio.fail_after(20):
            answer = await wire.answer()
        assert answer["id"] == 9 and answer["error"]["code"] == -32601, answer
        await wire.write(
            rb'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"run_task_template",'
            rb'"arguments":{"templateId":"fl\ud800ow"}}}'
        )
        with anyio.fail_after(20):
            answer = await wire.answer()
        failed = answer["result"]["structuredContent"]
        assert answer["id"] == 10 and failed["errorCode"] == "TEMPLATE_NOT_FOUND", answer
        assert "fl\ufffdow" in failed["error"]
        await wire.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')  # no answer
        assert "result" in await wire.request("ping")  # still serving, the next answer its own


async def test_malformed_bodies_are_answered_over_http(remote_http: Served) -> None:
    async with httpx2.AsyncClient(timeout=60) as http:
        wire = HttpWire(http, remote_http.url, "2025-11-25")
        await wire.start()
        for body, code, request_id in CASES:
            response = await wire.post(body)
            assert response.status_code == 400, (body[:60], response.text)
            (answer,) = parse_body(response)
            assert answer["error"]["code"] in (code, -32700 if code == -32600 else code), answer
            if b'"method"' not in body[:40] and request_id is not None and len(body) < 1000:
                assert answer["error"]["code"] == -32600 and answer["id"] == request_id
        assert "result" in await wire.request("ping")
        wire.next_id += 1
        lone = (
            b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_task_template",'
            b'"arguments":{"templateId":"fl\\ud800ow"}}}' % wire.next_id
        )
        (answer,) = [m for m in await wire.send_raw(lone) if m.get("id") == wire.next_id]
        failed = answer["result"]["structuredContent"]
        assert failed["errorCode"] == "TEMPLATE_NOT_FOUND" and "fl\ufffdow" in failed["error"]
        headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
        late = await http.post(
            remote_http.url, content=json.dumps({"jsonrpc": "2.0", "id": 1}), headers=headers
        )
        assert late.status_code == 400 and late.json()["error"]["code"] == -32600
