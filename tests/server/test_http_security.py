"""HTTP that is safe to expose: bearer tokens through the SDK's auth hooks (401 with
WWW-Authenticate without one, a trust level per token, never logged), no unguarded non-loopback
address, and the Host/Origin checks against DNS rebinding on a server bound to 0.0.0.0."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client

from taskplate.contract import TaskplateError, TrustLevel
from taskplate.interpreter import Share
from taskplate.server.transports._auth import (
    StaticTokens,
    load_tokens,
    own_principal,
    parse_tokens,
    shares,
)
from tests.fixtures.processes import all_gone, descendants
from tests.server.conftest import DSL, Served, env_for, free_port, start_http, stop

pytestmark = pytest.mark.anyio
LOCAL_TOKEN = "local-token-0123456789abcdef"
REMOTE_TOKEN = "remote-token-0123456789abcdef"
ENV_TOKEN = "env-token-0123456789abcdef"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def guarded(home: Path) -> Any:
    tokens = home.parent / "tokens.txt"
    tokens.write_text(f"# operators\n{LOCAL_TOKEN} local\n\n{REMOTE_TOKEN}\n", encoding="utf-8")
    served = start_http(
        home,
        "--host",
        "0.0.0.0",
        "--token-file",
        str(tokens),
        "--public-host",
        "mcp.example.test",
        "--allow-origin",
        "https://app.example.test",
        env={"TASKPLATE_TOKENS": ENV_TOKEN},
    )
    yield served
    stop(served)


@asynccontextmanager
async def client_with(url: str, token: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


async def post(url: str, body: Any = INIT, **headers: str) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=30) as http:
        return await http.post(url, json=body, headers={**HEADERS, **headers})


async def test_a_request_without_a_valid_token_gets_401(guarded: Served) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer wrong-token-0123456789"},
        {"Authorization": "Basic x"},
    ):
        answer = await post(guarded.url, **headers)
        assert answer.status_code == 401, headers
        assert answer.headers["www-authenticate"].startswith("Bearer "), answer.headers
    assert (await post(guarded.url, Authorization=f"Bearer {REMOTE_TOKEN}")).status_code == 200


async def test_each_token_carries_its_trust_level(guarded: Served) -> None:
    for token, trust in ((LOCAL_TOKEN, "local"), (REMOTE_TOKEN, "remote"), (ENV_TOKEN, "remote")):
        async with client_with(guarded.url, token) as client:
            profile = await client.call_tool("get_runtime_profile", {})
            assert profile.structured_content is not None
            assert profile.structured_content["trustLevel"] == trust, token


async def test_host_and_origin_are_checked_on_a_server_bound_to_every_address(
    guarded: Served,
) -> None:
    port = guarded.url.split(":")[2].split("/")[0]
    auth = {"Authorization": f"Bearer {REMOTE_TOKEN}"}
    assert (await post(guarded.url, Host=f"evil.test:{port}", **auth)).status_code == 421
    assert (await post(guarded.url, Host=f"mcp.example.test:{port}", **auth)).status_code == 200
    assert (await post(guarded.url, Host="mcp.example.test", **auth)).status_code == 200
    assert (await post(guarded.url, Origin="https://evil.test", **auth)).status_code == 403
    no_method = {"jsonrpc": "2.0", "id": 1}
    assert (await post(guarded.url, no_method, Host=f"evil.test:{port}", **auth)).status_code == 421
    assert (await post(guarded.url, no_method, Host=f"evil.test:{port}")).status_code == 401
    assert (await post(guarded.url, Origin="https://app.example.test", **auth)).status_code == 200


async def test_tokens_never_reach_the_log(guarded: Served) -> None:
    await post(guarded.url, Authorization=f"Bearer {REMOTE_TOKEN}")
    await post(guarded.url, Authorization="Bearer wrong-token-0123456789")
    log = Path(guarded.log.name).read_text(encoding="utf-8")
    assert "serving MCP" in log
    for secret in (LOCAL_TOKEN, REMOTE_TOKEN, ENV_TOKEN, "wrong-token-0123456789"):
        assert secret not in log


def serve_once(home: Path, *flags: str, env: dict[str, str] | None = None) -> Any:
    """`dsl serve` that is expected to refuse to start."""
    return subprocess.run(
        [DSL, "serve", "--transport", "http", "--port", str(free_port()), *flags],
        env={**env_for(home), **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_non_loopback_address_without_tokens_is_refused(home: Path) -> None:
    refused = serve_once(home, "--host", "0.0.0.0")
    assert refused.returncode == 1
    assert "without bearer tokens" in refused.stderr and "--token-file" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_port_in_use_is_said_in_one_line_and_nothing_is_left_running(home: Path) -> None:
    """`dsl serve` on a port something else listens on: exit 1, the error and a hint, no
    traceback; the processes it started on the way (the conversion worker) end with it."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = subprocess.Popen(
            [DSL, "serve", "--transport", "http", "--port", str(port)],
            env=env_for(home),
            stderr=subprocess.PIPE,
            text=True,
        )
        started: set[int] = set()
        while process.poll() is None:  # what it starts, seen while it runs
            started.update(descendants(process.pid))
            time.sleep(0.05)
        said = process.communicate(timeout=60)[1]
    assert process.returncode == 1, said
    assert f"error: could not listen on http://127.0.0.1:{port}" in said, said
    assert "[INVALID_PARAMETER]" in said and "hint: Pick another --port" in said
    assert "Traceback" not in said
    assert not all_gone(sorted(started), within_s=15)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("short\n", "at least 16 characters"),
        ("a-long-enough-token-123 admin\n", "expected TOKEN [local|remote] [principal=NAME]"),
        ("a-long-enough-token-123 principal=a:b\n", "principal name 'a:b' must be"),
        ("a-long-enough-token-123 remote principal=local\n", "principal name 'local' is the local"),
        (
            "a-long-enough-token-123 local principal=ops\nanother-long-token-456 principal=ops\n",
            "principal ops has tokens of different trust levels",
        ),
        (
            "a-long-enough-token-123 max-running=0\n",
            "entry 1: max-running must be a whole number from 1 to 1,000,000, not '0'",
        ),
        (
            "a-long-enough-token-123 principal=ops max-queued=4\n"
            "another-long-token-456 principal=ops max-queued=9\n",
            "entry 2: principal ops has two max-queued",
        ),
    ],
)
def test_a_bad_token_file_is_a_clear_error(home: Path, lines: str, message: str) -> None:
    path = home.parent / "bad-tokens.txt"
    path.write_text(lines, encoding="utf-8")
    refused = serve_once(home, "--host", "0.0.0.0", "--token-file", str(path))
    assert refused.returncode == 1 and message in refused.stderr, refused.stderr
    assert lines.split()[0] not in refused.stderr  # not even a bad token is printed


async def test_no_auth_serves_a_non_loopback_address_with_a_warning(home: Path) -> None:
    served = start_http(home, "--host", "0.0.0.0", "--no-auth")
    try:
        async with Client(served.url) as client:
            assert (await client.call_tool("get_runtime_profile", {})).structured_content
        log = Path(served.log.name).read_text(encoding="utf-8")
        assert "warning: serving HTTP on 0.0.0.0 without authentication" in log
    finally:
        stop(served)


async def test_the_verifier_accepts_exactly_the_known_tokens() -> None:
    tokens = parse_tokens(f"{LOCAL_TOKEN} local,{REMOTE_TOKEN}", "test")
    verifier = StaticTokens(tokens)
    local = await verifier.verify_token(LOCAL_TOKEN)
    assert local is not None
    assert local.claims == {"trust": str(TrustLevel.LOCAL), "principal": own_principal(tokens[0])}
    assert (local.claims or {})["principal"].startswith("token:")  # no name a line may give
    assert LOCAL_TOKEN not in repr(local)  # the SDK keeps the AccessToken; not the secret
    for wrong in ("", LOCAL_TOKEN[:-1], LOCAL_TOKEN + "x", REMOTE_TOKEN.upper()):
        assert await verifier.verify_token(wrong) is None
    with pytest.raises(TaskplateError):
        parse_tokens("tooshort", "test")
    shared = StaticTokens(
        parse_tokens(f"{LOCAL_TOKEN} principal=team\n{REMOTE_TOKEN} principal=team", "t")
    )
    for token in (LOCAL_TOKEN, REMOTE_TOKEN):  # one principal, two tokens: one caller
        verified = await shared.verify_token(token)
        assert verified is not None and (verified.claims or {})["principal"] == "team"
    with anyio.fail_after(5):
        assert await StaticTokens([]).verify_token(LOCAL_TOKEN) is None


def test_a_token_line_gives_its_principal_a_share_of_the_runs() -> None:
    tokens = parse_tokens(
        f"{LOCAL_TOKEN} principal=team max-running=2\n"
        f"{REMOTE_TOKEN} max-queued=7 principal=team\n"  # the words in any order
        "lone-token-0123456789abcdef max-queued=3\n"
        "plain-token-0123456789abcdef\n",
        "t",
    )
    given = shares(tokens)
    assert given == {  # a line without one takes its principal's; no line, no share
        "team": Share(running=2, queued=7),
        own_principal(tokens[2]): Share(queued=3),
    }
    for bad in ("max-running=-1", "max-running=1.5", "max-queued=", "max-queued=1000001"):
        with pytest.raises(TaskplateError, match="must be a whole number from 1") as caught:
            parse_tokens(f"{LOCAL_TOKEN} {bad}", "t")
        assert caught.value.recover_hint and LOCAL_TOKEN not in caught.value.message
    with pytest.raises(TaskplateError, match="expected TOKEN"):
        parse_tokens(f"{LOCAL_TOKEN} max-running=1 max-running=1", "t")


def test_a_principal_has_one_trust_level_across_the_token_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TASKPLATE_TOKENS", f"{LOCAL_TOKEN} local principal=ops")
    path = tmp_path / "tokens.txt"
    path.write_text(f"{REMOTE_TOKEN} principal=ops\n", encoding="utf-8")
    with pytest.raises(TaskplateError, match="ops has tokens of different trust levels"):
        load_tokens(path)
    path.write_text(f"{REMOTE_TOKEN} local principal=ops\n", encoding="utf-8")
    assert [t.principal for t in load_tokens(path)] == ["ops", "ops"]
    monkeypatch.setenv("TASKPLATE_TOKENS", f"{LOCAL_TOKEN} local principal=ops max-running=1")
    path.write_text(f"{REMOTE_TOKEN} local principal=ops max-running=3\n", encoding="utf-8")
    with pytest.raises(TaskplateError, match="ops has two max-running in TASKPLATE_TOKENS"):
        load_tokens(path)
