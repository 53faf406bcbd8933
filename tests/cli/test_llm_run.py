"""`dsl run` asks the OpenAI-compatible endpoint of taskplate.toml's [llm] table (or, without
one, of TASKPLATE_LLM_URL) for llm_extract, and says so clearly when none is set. The endpoint is
a local chat-completions server (tests/fixtures/chat_completions.py; no network, no model); the
page is the fixture site's, in the real Chromium."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.chat_completions import ChatEndpoint, chat_endpoint
from tests.fixtures.server import FixtureServer
from tests.server.conftest import DSL

TEMPLATE = Path(__file__).parents[1] / "server" / "llm_templates" / "llm_page.yaml"
TOKEN = "tok-4242-secret"


@pytest.fixture
def endpoint() -> Iterator[ChatEndpoint]:
    answers = [json.dumps({"subject": "soup"}), json.dumps({"subject": "soup", "number": 18})]
    with chat_endpoint(answers, token="k-123") as served:
        yield served


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
    tmp_path: Path, site: FixtureServer, endpoint: ChatEndpoint
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


def test_dsl_run_asks_the_endpoint_of_the_llm_table_and_its_steps_name_the_model(
    tmp_path: Path, site: FixtureServer, endpoint: ChatEndpoint
) -> None:
    (tmp_path / "taskplate.toml").write_text(
        f'[llm]\nurl = "{endpoint.url}"\nmodel = "toml-model"\ntoken_env = "MY_LLM_TOKEN"\n'
    )
    code, answer, err = dsl_run(tmp_path, site, {"MY_LLM_TOKEN": "k-123"})
    assert code == 0, (answer, err)
    assert answer["result"] == {"subject": "soup", "number": 18, "attempts": 2}
    assert [body["model"] for _, body in endpoint.requests] == ["toml-model", "toml-model"]
    assert all(h["Authorization"] == "Bearer k-123" for h, _ in endpoint.requests)
    sent = json.dumps([body for _, body in endpoint.requests])
    assert TOKEN not in sent and "Your API token is ***" in sent
    shown = subprocess.run(
        [DSL, "runs", "show", answer["runId"], "--steps"],
        env={**os.environ, "TASKPLATE_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    (step,) = [s for s in json.loads(shown.stdout)["steps"] if s["action"] == "llm_extract"]
    assert step["resultPreview"].startswith('{"model": {"via": "endpoint", "name": "toml-model"}')
    assert "k-123" not in json.dumps(answer) + err + shown.stdout + shown.stderr


def test_dsl_run_names_the_token_variable_the_llm_table_wants(
    tmp_path: Path, site: FixtureServer, endpoint: ChatEndpoint
) -> None:
    (tmp_path / "taskplate.toml").write_text(
        f'[llm]\nurl = "{endpoint.url}"\nmodel = "m"\ntoken_env = "MY_UNSET_LLM_TOKEN"\n'
    )
    code, answer, _ = dsl_run(tmp_path, site, {})
    assert code == 1
    error = answer["error"]
    assert error["details"]["stepErrorCode"] == "LLM_UNAVAILABLE", error
    assert "MY_UNSET_LLM_TOKEN" in error["error"] and "MY_UNSET_LLM_TOKEN" in error["recoverHint"]
    assert endpoint.requests == []
