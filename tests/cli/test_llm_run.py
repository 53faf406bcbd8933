"""`dsl run` asks an OpenAI-compatible endpoint named by TASKPLATE_LLM_URL for llm_extract, and
says so clearly when none is set. The endpoint is a tiny local fake started here (no network,
no model); the page is the fixture site's, in the real Chromium."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL

TEMPLATE = Path(__file__).parents[1] / "server" / "llm_templates" / "llm_page.yaml"
TOKEN = "tok-4242-secret"


class FakeEndpoint(ThreadingHTTPServer):
    """Chat completions: answers in order (the last repeats); every request kept."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers = answers
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: FakeEndpoint

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((dict(self.headers), body))
        if self.path != "/v1/chat/completions":
            self.send_response(404)
            self.end_headers()
            return
        answers = self.server.answers
        text = answers[min(len(self.server.requests), len(answers)) - 1]
        data = json.dumps(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    server = FakeEndpoint(
        [json.dumps({"subject": "soup"}), json.dumps({"subject": "soup", "number": 18})]
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def dsl_run(
    home: Path, site: FixtureServer, env: dict[str, str]
) -> tuple[int, dict[str, Any], str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TASKPLATE_LLM_")}
    done = subprocess.run(
        [
            DSL,
            "run",
            str(TEMPLATE),
            "--json",
            "--input",
            f"url={site.url('/account.html')}",
            "--input",
            f"token={TOKEN}",
        ],
        env={**clean, "TASKPLATE_HOME": str(home), **env},
        capture_output=True,
        text=True,
        timeout=180,
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def test_dsl_run_asks_the_configured_endpoint(
    tmp_path: Path, site: FixtureServer, endpoint: FakeEndpoint
) -> None:
    env = {
        "TASKPLATE_LLM_URL": endpoint.url,
        "TASKPLATE_LLM_MODEL": "fake-model",
        "TASKPLATE_LLM_KEY": "k-123",
    }
    code, answer, err = dsl_run(tmp_path, site, env)
    assert code == 0, (answer, err)
    assert answer["result"] == {"subject": "soup", "number": 18, "attempts": 2}
    (headers, first), (_, second) = endpoint.requests
    assert headers["Authorization"] == "Bearer k-123"
    assert first["model"] == "fake-model" and first["temperature"] == 0
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert "'number' is a required property" in second["messages"][-1]["content"]
    sent = json.dumps([body for _, body in endpoint.requests])
    assert "Plan: Team" in sent and TOKEN not in sent and "Your API token is ***" in sent
    assert "k-123" not in json.dumps(answer)


def test_dsl_run_says_when_no_model_is_configured(tmp_path: Path, site: FixtureServer) -> None:
    code, answer, _ = dsl_run(tmp_path, site, {})
    assert code == 1
    error = answer["error"]
    assert error["details"]["stepErrorCode"] == "LLM_UNAVAILABLE", error
    assert "TASKPLATE_LLM_URL is not set" in error["error"]
    assert "TASKPLATE_LLM_URL" in error["recoverHint"] and "sampling" in error["recoverHint"]


def test_dsl_run_says_when_the_endpoint_cannot_be_reached(
    tmp_path: Path, site: FixtureServer
) -> None:
    from tests.server.conftest import free_port

    env = {
        "TASKPLATE_LLM_URL": f"http://127.0.0.1:{free_port()}/v1",
        "TASKPLATE_LLM_MODEL": "m",
    }
    code, answer, _ = dsl_run(tmp_path, site, env)
    assert code == 1
    error = answer["error"]
    assert error["details"]["stepErrorCode"] == "LLM_UNAVAILABLE", error
    assert "cannot reach the language model" in error["error"]
    assert error["recoverHint"]
