"""Fuzzing a real `dsl serve` on stdio: every tool called with arguments drawn from its input
schema and mutated, and raw JSON-RPC lines (odd ids, methods, params, broken JSON, lone
surrogate escapes, long numbers, deep nesting, invalid UTF-8). Invariants: the server never
dies or goes silent, every request is answered, every error carries a code (a tool's errorCode,
a JSON-RPC error's integer code) and every tool answer validates against its outputSchema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import given
from hypothesis import strategies as st

from tests.fixtures.server import FixtureServer
from tests.fuzzing import fuzz_settings
from tests.server.wire import StdioWire, stdio_wire

pytestmark = pytest.mark.fuzz
ANSWER_S = 60  # the longest any one answer may take (a scrape of a fixture page, under load)

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["A\ud800B", "\udfff", "", "x" * 300]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


class Served:
    """`dsl serve` on stdio, driven from sync tests through a portal."""

    def __init__(self, portal: BlockingPortal, wire: StdioWire) -> None:
        self.portal = portal
        self.wire = wire
        self.probes = 0

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        async def ask() -> dict[str, Any]:
            with anyio.fail_after(ANSWER_S):
                return await self.wire.request(method, params)

        return self.portal.call(ask)

    def line(self, data: bytes, expect: Any) -> list[dict[str, Any]]:
        """Send a raw line, then a ping: every message until the ping's answer (and the line's
        own answer, when `expect` names its id or is NULL_ID), each valid JSON."""

        def owed(seen: list[dict[str, Any]]) -> bool:
            if expect is NULL_ID:
                return any(m.get("id", 0) is None and "error" in m for m in seen)
            return expect is None or any(m.get("id") == expect for m in seen)

        self.probes += 1
        probe = f"probe-{self.probes}"

        async def exchange() -> list[dict[str, Any]]:
            await self.wire.write(data.replace(b"\n", b" "))
            ping = {"jsonrpc": "2.0", "id": probe, "method": "ping"}
            await self.wire.write(json.dumps(ping).encode())
            seen: list[dict[str, Any]] = []
            with anyio.fail_after(ANSWER_S):
                while not (any(m.get("id") == probe for m in seen) and owed(seen)):
                    seen.append(await self.wire.read())
            return seen

        return self.portal.call(exchange)


@pytest.fixture(scope="module")
def served(home: Path) -> Iterator[Served]:
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(stdio_wire(home, "2025-11-25")) as wire,
    ):
        portal.call(wire.start)
        yield Served(portal, wire)


@pytest.fixture(scope="module")
def tools(served: Served) -> dict[str, dict[str, Any]]:
    listed = served.request("tools/list")["result"]["tools"]
    return {t["name"]: t for t in listed}


# -- tool arguments from the input schemas ----------------------------------------------------
URL_NAMES = {"url"}
JUNK_URLS = ["", "http://", "http://[::1/", "http://127.0.0.1:99999/", "../../etc/passwd", "a b"]
SLOW_NAMES = {"waitFor", "timeoutMs", "ms", "quietMs"}


@dataclass
class World:
    """What drawn arguments may name: the fixture site, and a live session on one of its pages."""

    site: FixtureServer
    session: str


def valid(schema: dict[str, Any], name: str, world: World) -> st.SearchStrategy[Any]:
    """Values the schema (mostly) takes; URLs only of the fixture site or junk, never the web."""
    site = world.site
    if name == "sessionId":
        return st.sampled_from([world.session, world.session, "nope"]) | st.text(max_size=8)
    if name in URL_NAMES:
        return st.sampled_from([site.url("/article.html"), site.url("/surrogate.html"), *JUNK_URLS])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    kinds = schema.get("type")
    kind = next((k for k in kinds if k != "null"), None) if isinstance(kinds, list) else kinds
    if kind == "string":
        return st.text(max_size=16) | st.sampled_from(["A\ud800B", "x"])
    if kind == "integer":
        low = schema.get("minimum", -(2**31))
        high = schema.get("maximum", 2**31)
        if name in SLOW_NAMES:
            high = min(high, low + 1500)
        return st.integers(low, max(low, high))
    if kind == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(valid(schema.get("items", {}), "", world), max_size=3)
    if kind == "object" and "properties" in schema:
        return arguments(schema, world)
    return JSON


def mutated(schema: dict[str, Any], name: str, world: World) -> st.SearchStrategy[Any]:
    """Mostly a value the schema takes; one in four anything JSON, or a number past bounds (a
    time never anything it takes but a short one: fuzzing is not waiting)."""
    odd = st.sampled_from([2**63, -(2**63), 10**400, 1.5, -1, 0, "1", None])
    if name not in SLOW_NAMES:
        odd = odd | JSON
    return st.integers(0, 3).flatmap(lambda n: odd if n == 0 else valid(schema, name, world))


@st.composite
def arguments(draw: st.DrawFn, schema: dict[str, Any], world: World) -> dict[str, Any]:
    out: dict[str, Any] = {}
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        always = name in required or name in SLOW_NAMES  # a default wait could be long
        if (always and draw(st.integers(0, 9)) > 0) or draw(st.booleans()):
            out[name] = draw(mutated(prop, name, world))
    if draw(st.integers(0, 9)) == 0:
        out[draw(st.text(min_size=1, max_size=8))] = draw(JSON)
    return out


@st.composite
def tool_calls(draw: st.DrawFn, tools: dict[str, dict[str, Any]], world: World) -> Any:
    name = draw(st.sampled_from(sorted(tools)) | st.sampled_from(["no_such_tool", "", "A\ud800"]))
    schema = tools[name]["inputSchema"] if name in tools else {"type": "object"}
    drawn = draw(arguments(schema, world))
    if name == "close_session" and drawn.get("sessionId") == world.session:
        drawn["sessionId"] = "nope"  # the shared session stays open for the other examples
    return name, drawn


def test_every_tool_answers_fuzzed_arguments_with_a_valid_answer(
    served: Served, tools: dict[str, dict[str, Any]], site: FixtureServer
) -> None:
    opened = served.request("tools/call", {"name": "create_session", "arguments": {}})
    world = World(site, opened["result"]["structuredContent"]["sessionId"])
    page = {"sessionId": world.session, "url": site.url("/surrogate.html")}
    served.request("tools/call", {"name": "navigate", "arguments": page})

    @fuzz_settings(150)
    @given(tool_calls(tools, world))
    def call(named: tuple[str, dict[str, Any]]) -> None:
        name, args = named
        answer = served.request("tools/call", {"name": name, "arguments": args})
        assert "result" in answer, (name, args, answer)
        content = answer["result"].get("structuredContent")
        assert content is not None, (name, args, answer)
        if name in tools:
            jsonschema.validate(content, tools[name]["outputSchema"])
        if answer["result"].get("isError"):
            assert content.get("errorCode") and content.get("recoverHint"), (name, args, content)
        elif name == "create_session":
            served.request(
                "tools/call",
                {"name": "close_session", "arguments": {"sessionId": content["sessionId"]}},
            )

    call()
    assert "result" in served.request("ping")


# -- raw JSON-RPC lines -------------------------------------------------------------------------
NULL_ID = object()  # owed: an error answer with `id: null` (an id that could not be used)
CHEAP_TOOLS = ["list_task_runs", "get_task_run", "get_artifact", "list_task_templates", "nope"]
METHODS = [
    "ping",
    "tools/list",
    "resources/list",
    "resources/read",
    "prompts/list",
    "logging/setLevel",
    "tools/call",
    "no/such",
    "pi\ud800ng",
    "notifications/cancelled",
]
IDS = (
    st.integers(-(2**70), 2**70)
    | st.text(max_size=8)
    | st.none()
    | st.booleans()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.lists(st.integers(), max_size=2)
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
)


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    message: dict[str, Any] = {}
    if draw(st.integers(0, 9)) > 0:
        message["jsonrpc"] = draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2]))
    if draw(st.integers(0, 4)) > 0:
        message["id"] = draw(IDS)
    method = draw(st.sampled_from(METHODS) | st.text(max_size=10) | JSON)
    if draw(st.integers(0, 9)) > 0:
        message["method"] = method
    if method == "tools/call":
        message["params"] = {"name": draw(st.sampled_from(CHEAP_TOOLS)), "arguments": draw(JSON)}
    elif draw(st.booleans()):
        message["params"] = draw(JSON)
    return message


@st.composite
def lines(draw: st.DrawFn) -> tuple[bytes, Any]:
    """A line, and the id its answer must carry (None: no particular answer is owed)."""
    message = draw(messages())
    data = json.dumps(message).encode()
    how = draw(st.integers(0, 7))
    if how == 1:  # cut short
        data = data[: draw(st.integers(0, len(data)))]
    elif how == 2:  # a byte changed, invalid UTF-8 included
        at = draw(st.integers(0, len(data)))
        data = (
            data[:at]
            + draw(st.sampled_from([b"\xff", b"\xed\xa0\x80", b"{", b'"', b"\\"]))
            + data[at:]
        )
    elif how == 3:  # wrapped deep
        depth = draw(st.sampled_from([50, 300, 1200]))
        data = b"[" * depth + data + b"]" * depth
    elif how == 4:  # a number too long to read
        data = data.replace(b'"jsonrpc"', b'"n": ' + b"7" * 4400 + b', "jsonrpc"', 1)
    owed: Any = None  # a request whose JSON is whole is owed an answer, whatever its id
    if how in (0, 4) and isinstance(message.get("method"), str) and "id" in message:
        request_id = message["id"]
        valid_id = isinstance(request_id, str | int) and not isinstance(request_id, bool)
        owed = request_id if valid_id else NULL_ID
    return data, owed


def test_raw_json_rpc_lines_are_answered_and_the_server_goes_on(served: Served) -> None:
    @fuzz_settings(150)
    @given(lines())
    def send(line: tuple[bytes, Any]) -> None:
        data, owed = line
        for answer in served.line(data, owed):
            if "error" in answer:
                assert isinstance(answer["error"].get("code"), int), (data[:200], answer)
                assert isinstance(answer["error"].get("message"), str), (data[:200], answer)
            if answer.get("id") == owed and "result" in answer and owed is not None:
                structured = answer["result"].get("structuredContent")
                if isinstance(structured, dict) and answer["result"].get("isError"):
                    assert structured.get("errorCode"), (data[:200], answer)

    send()
    assert "result" in served.request("ping")
