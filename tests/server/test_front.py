"""The start of `dsl serve` on stdio (server/transports/_front.py, server/transports/_sdk_takeover.py): `initialize` and
`tools/list` answered before the SDK is loaded, byte for byte as the SDK's server answers them
at every protocol version; requests sent at once during the start all answered once; a bad
first line answered as before; stdin closed during the start ends the process cleanly."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from mcp.server.runner import ServerRunner
from mcp.shared.inbound import InboundModernRoute, classify_inbound_request
from mcp_types.methods import validate_client_request
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from taskplate.server.transports._front import Front, Started, usual_envelope, usual_initialize
from tests.server.conftest import DSL, env_for
from tests.server.test_serve_signals import descendants_running
from tests.server.test_serve_warm import conversion_workers
from tests.server.wire import CLIENT_INFO, envelope

# every version a client may ask for: the SDK's, and one it does not know (it offers its latest)
ASKED = [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS, "1999-01-01"]
STARTED = "answered before the SDK was loaded"


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def initialize(version: str, request_id: int | str = 1) -> dict[str, Any]:
    params = {
        "protocolVersion": version,
        "capabilities": {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}},
        "clientInfo": CLIENT_INFO,
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def tools_list(request_id: int | str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}
    if meta is not None:
        message["params"] = {"_meta": meta}
    return message


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


# An option, as a client may pass: answers are kept per set of options and settings.
OPTION = ("--transport", "stdio")


class Server:
    """`dsl serve` on stdio with its own cache folder (where the start's answers are kept)."""

    def __init__(self, home: Path, cache: Path, args: tuple[str, ...] = OPTION) -> None:
        env = {**env_for(home), "XDG_CACHE_HOME": str(cache)}
        self.process = subprocess.Popen(
            [DSL, "serve", *args],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(self, *messages: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        for message in messages:
            self.process.stdin.write(message if isinstance(message, bytes) else line(message))
        self.process.stdin.flush()

    def answers(self, count: int) -> list[bytes]:
        """The next `count` answers (responses, not notifications), as the lines sent."""
        assert self.process.stdout is not None
        got: list[bytes] = []
        while len(got) < count:
            sent = self.process.stdout.readline()
            assert sent, f"the server ended after {got}"
            if "method" not in json.loads(sent):
                got.append(sent)
        return got

    def close(self) -> tuple[str, list[bytes]]:
        """stdin closed, the process waited for; its log and what it wrote still unread."""
        process = self.process
        assert process.stdin is not None and process.stdout and process.stderr is not None
        process.stdin.close()
        try:
            process.wait(timeout=60)
        finally:
            process.kill()
        with process.stdout, process.stderr:
            return process.stderr.read().decode(errors="replace"), process.stdout.readlines()


def talk(
    home: Path,
    cache: Path,
    *messages: dict[str, Any] | bytes,
    answers: int,
    args: tuple[str, ...] = OPTION,
) -> tuple[list[bytes], str]:
    server = Server(home, cache, args)
    try:
        server.send(*messages)
        got = server.answers(answers)
    finally:
        log, _ = server.close()
    return got, log


def opening(version: str) -> list[dict[str, Any]]:
    """A client's first messages at `version`: the handshake and the tool list (ids 1 and "2"),
    or on 2026-07-28 server/discover and the tool list, each in its envelope."""
    if version in MODERN_PROTOCOL_VERSIONS:
        discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover"}
        discover["params"] = {"_meta": envelope(version)}
        return [discover, tools_list("2", envelope(version))]
    return [initialize(version), INITIALIZED, tools_list("2")]


@pytest.mark.parametrize("version", ASKED)
def test_the_start_answers_as_the_sdk_server_does_at_every_version(
    version: str, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    by_sdk, first_log = talk(tmp_path / "home", cache, *opening(version), answers=2)
    assert STARTED not in first_log  # nothing kept yet: the SDK's server answered
    by_start, log = talk(tmp_path / "home", cache, *opening(version), answers=2)
    assert by_start == by_sdk, version
    assert f"2 requests {STARTED}" in log, log
    assert "unlike the server" not in log
    listed = json.loads(by_start[1])["result"]["tools"]
    assert {"run_task_template", "navigate", "save_template"} <= {t["name"] for t in listed}


def test_requests_sent_at_once_during_the_start_are_each_answered_once(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    talk(tmp_path / "home", cache, *opening("2025-06-18"), answers=2)  # keeps the answers
    call = {"name": "get_runtime_profile", "arguments": {}}
    server = Server(tmp_path / "home", cache)
    try:
        server.send(
            initialize("2025-06-18", "a"),
            INITIALIZED,
            tools_list(2),
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call},
            {"jsonrpc": "2.0", "id": 4, "method": "ping"},
            tools_list(5),
        )
        answers = {json.loads(a)["id"]: json.loads(a) for a in server.answers(5)}
        assert set(answers) == {"a", 2, 3, 4, 5}
        assert answers["a"]["result"]["protocolVersion"] == "2025-06-18"
        assert answers[2] == answers[5] | {"id": 2}
        assert answers[3]["result"]["structuredContent"]["trustLevel"] == "local"
        assert answers[4]["result"] == {}
        server.send({"jsonrpc": "2.0", "id": 6, "method": "ping"})
        (after,) = server.answers(1)  # no second answer to what the start answered
        assert json.loads(after)["id"] == 6
    finally:
        log, _ = server.close()
    assert f"3 requests {STARTED}" in log and "unlike the server" not in log


@pytest.mark.parametrize(
    "first",
    [b"not json\n", line(tools_list(1)), line(initialize("2025-06-18") | {"id": None})],
    ids=["not-json", "tools-list-first", "null-id"],
)
def test_a_bad_first_line_gets_the_answer_it_got_before(first: bytes, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    talk(tmp_path / "home", cache, *opening("2025-06-18"), answers=2)  # keeps the answers
    ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
    (answer, _), log = talk(tmp_path / "home", cache, first, ping, answers=2)
    (again, _), _ = talk(tmp_path / "home", tmp_path / "empty", first, ping, answers=2)
    assert answer == again and "error" in json.loads(answer)
    assert STARTED not in log


@pytest.mark.parametrize("version", ["2025-11-25", *MODERN_PROTOCOL_VERSIONS[-1:]])
def test_a_first_dsl_serve_is_the_sdks_and_the_next_answers_as_it_did(
    version: str, tmp_path: Path
) -> None:
    """`dsl serve` alone, nothing kept (just installed): nothing is shipped, so the SDK's server
    answers the first start, and the next one answers with what it kept, the same bytes."""
    cache = tmp_path / "cache"
    first, log = talk(tmp_path / "home", cache, *opening(version), answers=2, args=())
    assert STARTED not in log, log
    again, log = talk(tmp_path / "home", cache, *opening(version), answers=2, args=())
    assert f"2 requests {STARTED}" in log and "unlike the server" not in log, log
    assert again == first
    listed = json.loads(again[1])["result"]["tools"]
    assert {"run_task_template", "navigate", "save_template"} <= {t["name"] for t in listed}


def test_stale_kept_answers_are_replaced_by_the_servers(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    by_sdk, _ = talk(tmp_path / "home", cache, *opening("2025-11-25"), answers=2)
    (kept,) = (cache / "taskplate").glob("serve-*.json")
    answers = json.loads(kept.read_bytes())
    tools = answers["answers"]["tools/list"]["2025-11-25"]
    answers["answers"]["tools/list"]["2025-11-25"] = tools.replace("run_task_template", "old_name")
    kept.write_text(json.dumps(answers))
    ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}  # answered once the SDK is loaded
    stale, log = talk(tmp_path / "home", cache, *opening("2025-11-25"), ping, answers=3)
    assert b"old_name" in stale[1] and "answered tools/list unlike the server" in log
    again, _ = talk(tmp_path / "home", cache, *opening("2025-11-25"), answers=2)
    assert again == by_sdk


@pytest.mark.parametrize("kept", [False, True], ids=["nothing-kept", "answers-kept"])
def test_stdin_closed_during_the_start_ends_the_process(kept: bool, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    if kept:
        talk(tmp_path / "home", cache, *opening("2025-06-18"), answers=2)
    server = Server(tmp_path / "home", cache)
    server.send(initialize("2025-06-18"), INITIALIZED, tools_list(2))
    log, unread = server.close()  # before the answers are read: a client that leaves at once
    assert server.process.returncode == 0, log
    answered = [json.loads(a)["id"] for a in unread]
    if kept:  # what the start answered itself is answered whatever follows
        assert answered == [1, 2]
    else:  # the SDK's server stops the requests in flight when stdin closes (seen on 3.13)
        assert answered == [1, 2][: len(answered)]
    assert (f"2 requests {STARTED}" in log) == kept
    assert "Traceback" not in log
    deadline = time.monotonic() + 15  # what it started (a browser, a worker) ends with it
    while left := started_by(tmp_path / "home"):
        assert time.monotonic() < deadline, f"still running: {left}"
        time.sleep(0.1)


def started_by(home: Path) -> list[int]:
    """The processes running with `home` as their data home: a server and all it started."""
    mark = f"TASKPLATE_HOME={home}\0".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and mark in (entry / "environ").read_bytes() + b"\0":
                found.append(int(entry.name))
        except OSError:
            continue
    return found


PARAMS = [
    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT_INFO},
    {
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "roots": {"listChanged": True},
            "sampling": {"context": {}, "tools": {}},
            "elicitation": {"form": {}, "url": {}},
            "experimental": {"x": {"y": 1}},
        },
        "clientInfo": {**CLIENT_INFO, "title": "A client", "description": "tests"},
    },
    {"protocolVersion": "2024-11-05", "capabilities": {"roots": {}}, "clientInfo": CLIENT_INFO},
    {"protocolVersion": "3000-01-01", "capabilities": {}, "clientInfo": CLIENT_INFO},
    # what the start leaves to the SDK (taken or refused there)
    {"protocolVersion": "2025-06-18", "capabilities": {}},
    {"protocolVersion": 20250618, "capabilities": {}, "clientInfo": CLIENT_INFO},
    {"protocolVersion": "2025-06-18", "capabilities": [], "clientInfo": CLIENT_INFO},
    {"protocolVersion": "2025-06-18", "capabilities": {"roots": 1}, "clientInfo": CLIENT_INFO},
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {"listChanged": "yes"}},
        "clientInfo": CLIENT_INFO,
    },
    {"protocolVersion": "2025-06-18", "capabilities": {"tasks": {}}, "clientInfo": CLIENT_INFO},
    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "n"}},
    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {**CLIENT_INFO, "v": 1}},
    {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT_INFO, "_meta": {}},
]


@pytest.mark.parametrize("params", PARAMS)
def test_the_start_answers_only_initialize_params_the_sdk_takes(params: dict[str, Any]) -> None:
    if not usual_initialize(params):
        return  # left to the SDK, whatever it says
    for version in HANDSHAKE_PROTOCOL_VERSIONS:  # the SDK reads them before any is negotiated
        validate_client_request("initialize", version, params)
    _, negotiated = ServerRunner._negotiate_initialize(params)
    assert negotiated in HANDSHAKE_PROTOCOL_VERSIONS


def test_the_usual_shapes_are_answered_and_the_others_are_not() -> None:
    answered = [usual_initialize(p) for p in PARAMS]
    assert answered == [True] * 4 + [False] * (len(PARAMS) - 4)
    with pytest.raises(ValidationError):  # one the start leaves: the SDK refuses it
        ServerRunner._negotiate_initialize(PARAMS[5])


def test_the_browser_and_the_worker_warm_once_the_tools_are_listed(tmp_path: Path) -> None:
    server = Server(tmp_path / "home", tmp_path / "cache")
    pid = server.process.pid
    try:
        server.send(initialize("2025-06-18"), INITIALIZED)
        server.answers(1)
        call = {"name": "list_task_templates", "arguments": {}}
        server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        server.answers(1)  # the SDK's server answers: loaded, serving, the tools not listed
        assert conversion_workers(pid) == [] and descendants_running(pid, b"chrom") == []
        server.send(tools_list(3))
        server.answers(1)
        deadline = time.monotonic() + 120  # a spawned interpreter imports lxml and trafilatura
        while not (conversion_workers(pid) and descendants_running(pid, b"chrom")):
            assert time.monotonic() < deadline, "nothing warmed after the tool list"
            time.sleep(0.1)
        assert {pid, *conversion_workers(pid)} <= set(started_by(tmp_path / "home"))
    finally:
        server.close()


VERSIONS = [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS]
KEPT = {
    "fingerprint": "f",
    "handshake": list(HANDSHAKE_PROTOCOL_VERSIONS),
    "latest": HANDSHAKE_PROTOCOL_VERSIONS[-1],
    "modern": list(MODERN_PROTOCOL_VERSIONS),
    "answers": {
        method: {v: f'"result":{{"v":"{v}"}}}}' for v in VERSIONS}
        for method in ("initialize", "server/discover", "tools/list")
    },
}
MODERN = MODERN_PROTOCOL_VERSIONS[0]
DISCOVER = {"jsonrpc": "2.0", "id": 1, "method": "server/discover"}
IN_ENVELOPE = {"params": {"_meta": envelope(MODERN)}}
OPENING = line(initialize("2025-06-18")) + line(INITIALIZED) + line(tools_list(2))


@pytest.mark.parametrize(
    ("sent", "answered", "owed"),
    [
        (OPENING, [1, 2], False),
        (line(initialize("1999-01-01")), [1], False),  # the SDK offers its latest
        (OPENING + line(tools_list(3) | {"params": {"cursor": "x"}}), [1, 2], True),
        (OPENING.replace(b"\n", b"\r\n", 1), [], True),  # the SDK's reader splits lines there
        (b'{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"initialize"}\n', [], True),
        (line(initialize("2025-06-18")).replace(b"raw-test", b"raw-\\u0074est"), [], True),
        (b"\xff" + OPENING, [], True),
        (line(tools_list(2)) + OPENING, [], True),  # initialize is not the first line
        (line(initialize("2025-06-18")) + line(initialize("2025-06-18", 2)), [1], True),
        (line(initialize("2025-06-18", 1.0)) + line(tools_list(2)), [], True),  # type: ignore[arg-type]
        (OPENING[:-1], [1], True),  # a line without its end: the SDK reads it at EOF
        (b"".join(line(m) for m in opening(MODERN)), [1, "2"], False),
        (  # 2026-07-28 keeps no state: its requests are answered as they come
            line(tools_list(3, envelope(MODERN))) + line(DISCOVER | IN_ENVELOPE),
            [3, 1],
            False,
        ),
        (line(DISCOVER | IN_ENVELOPE) + line(tools_list(2)), [1], True),  # no envelope: the SDK's
        (line(DISCOVER | {"params": {"_meta": envelope(MODERN, "info")}}), [], True),
        (line(DISCOVER | {"params": {"_meta": envelope("2025-06-18")}}), [], True),
        (line(initialize(MODERN)) + line(DISCOVER | IN_ENVELOPE | {"id": 2}), [1], True),
        (line(DISCOVER) + line(initialize(MODERN, 2)), [], True),
    ],
)
def test_the_front_answers_only_what_it_is_sure_of(
    sent: bytes, answered: list[int], owed: bool
) -> None:
    read_r, read_w = os.pipe()
    out_r, out_w = os.pipe()
    loaded_r, loaded_w = os.pipe()
    started = Started(None, "f", json.loads(json.dumps(KEPT)))
    try:
        os.write(read_w, sent)
        os.close(read_w)  # stdin ends: the front returns, or waits for the SDK when owed
        if owed:
            os.write(loaded_w, b".")
        front = Front(started, read_r, out_w)
        front.serve(loaded_r)
        os.close(out_w)
        with os.fdopen(out_r, "rb") as out:
            lines = out.read().splitlines()
    finally:
        for fd in (read_r, loaded_r, loaded_w):
            os.close(fd)
    assert [json.loads(a)["id"] for a in lines] == answered
    assert list(started.answered) == answered and started.finished is not owed
    assert bytes(started.read) == sent
    if answered:
        assert json.loads(lines[0])["result"]["v"] in VERSIONS


@pytest.mark.parametrize("params", PARAMS)
def test_the_start_answers_only_envelopes_the_sdk_takes(params: dict[str, Any]) -> None:
    meta = {f"io.modelcontextprotocol/{k}": v for k, v in params.items() if k != "_meta"}
    meta = {k.replace("capabilities", "clientCapabilities"): v for k, v in meta.items()}
    for version in MODERN_PROTOCOL_VERSIONS:
        enveloped = {"_meta": {**meta, "io.modelcontextprotocol/protocolVersion": version}}
        if usual_envelope(enveloped) is None:
            continue
        route = classify_inbound_request({"method": "tools/list", "params": enveloped})
        assert isinstance(route, InboundModernRoute), (params, route)
    assert usual_envelope({"_meta": envelope(MODERN)}) == MODERN
    assert usual_envelope({"_meta": envelope(MODERN), "cursor": "x"}) is None
