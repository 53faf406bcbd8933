"""The [llm] endpoint as a Sampler, against a local chat-completions server
(tests/fixtures/chat_completions.py): the request it sends, and each way the endpoint can fail
as a clear LLM_UNAVAILABLE that never shows the token (message, hint, details, log)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.providers import ModelEndpoint
from taskplate.stdlib import ChatCompletions, Message, SamplingRequest
from tests.fixtures.chat_completions import ChatEndpoint, chat_endpoint
from tests.fixtures.processes import free_port

pytestmark = pytest.mark.anyio
TOKEN = "sk-test-7f3a9c"
REQUEST = SamplingRequest("Answer with JSON.", (Message("user", "What is it?"),), 256)


@pytest.fixture
def endpoint() -> Iterator[ChatEndpoint]:
    with chat_endpoint(['{"subject": "soup"}'], token=TOKEN) as served:
        yield served


def sampler(
    url: str, timeout_ms: int = 10_000, token_env: str | None = "LLM_TOKEN"
) -> ChatCompletions:
    endpoint = ModelEndpoint(
        url, "fake-model", "/etc/taskplate.toml", token_env, "fallback", timeout_ms
    )
    return ChatCompletions(endpoint, env={"LLM_TOKEN": TOKEN})


async def failure(chat: ChatCompletions, caplog: pytest.LogCaptureFixture) -> TaskplateError:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(TaskplateError) as raised:
        await chat.sample(REQUEST)
    error = raised.value
    assert error.code == ErrorCode.LLM_UNAVAILABLE, error.to_json()
    assert error.recover_hint
    shown = json.dumps(error.to_json()) + caplog.text
    assert TOKEN not in shown, shown
    assert error.__context__ is None or error.__suppress_context__  # no chained traceback
    return error


async def test_a_question_is_one_chat_completion_with_the_bearer_token(
    endpoint: ChatEndpoint,
) -> None:
    sampled = await sampler(endpoint.url).sample(REQUEST)
    assert (sampled.text, sampled.via, sampled.model) == (
        '{"subject": "soup"}',
        "endpoint",
        "fake-model",
    )
    ((headers, body),) = endpoint.requests
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    assert body == {
        "model": "fake-model",
        "messages": [
            {"role": "system", "content": "Answer with JSON."},
            {"role": "user", "content": "What is it?"},
        ],
        "max_tokens": 256,
        "temperature": 0,
    }


async def test_an_endpoint_nobody_listens_on_is_unreachable(
    caplog: pytest.LogCaptureFixture,
) -> None:
    error = await failure(sampler(f"http://127.0.0.1:{free_port()}/v1"), caplog)
    assert "cannot reach the language model" in error.message
    assert "[llm]" in error.recover_hint and "/etc/taskplate.toml" in error.recover_hint


async def test_an_error_status_is_named_and_the_echoed_token_masked(
    endpoint: ChatEndpoint, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint.mode = "status"
    error = await failure(sampler(endpoint.url), caplog)
    assert "answered HTTP 500" in error.message and "Bearer ***" in error.message


async def test_a_wrong_token_is_an_error_status(
    endpoint: ChatEndpoint, caplog: pytest.LogCaptureFixture
) -> None:
    chat = ChatCompletions(
        ModelEndpoint(endpoint.url, "fake-model", "here", "LLM_TOKEN"), env={"LLM_TOKEN": "wrong"}
    )
    error = await failure(chat, caplog)
    assert "answered HTTP 401" in error.message and "token_env" in error.recover_hint


@pytest.mark.parametrize("mode", ["not-json", "malformed"])
async def test_an_answer_that_is_no_chat_completion_is_named(
    endpoint: ChatEndpoint, caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    endpoint.mode = mode
    error = await failure(sampler(endpoint.url), caplog)
    assert "did not answer like an OpenAI-compatible chat completion" in error.message
    assert "choices[0].message.content" in error.message


async def test_an_endpoint_that_does_not_answer_in_time_times_out(
    endpoint: ChatEndpoint, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint.mode = "hang"
    error = await failure(sampler(endpoint.url, timeout_ms=300), caplog)
    assert "did not answer within 0.3 s" in error.message
    assert "timeout_ms" in error.recover_hint


async def test_a_missing_token_variable_is_named_before_anything_is_sent(
    endpoint: ChatEndpoint, caplog: pytest.LogCaptureFixture
) -> None:
    error = await failure(sampler(endpoint.url, token_env="NO_SUCH_LLM_TOKEN_VAR"), caplog)
    assert "NO_SUCH_LLM_TOKEN_VAR" in error.message and "token_env" in error.message
    assert endpoint.requests == []


async def test_an_endpoint_without_token_env_gets_no_authorization_header() -> None:
    with chat_endpoint(['"ok"']) as open_endpoint:
        sampled = await sampler(open_endpoint.url, token_env=None).sample(REQUEST)
        ((headers, _),) = open_endpoint.requests
    assert sampled.text == '"ok"' and "Authorization" not in headers
