"""The configured endpoint as a `Sampler`: one OpenAI-compatible chat-completions request per
question. Reads its bearer token from the environment when asked; never shows the token.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from taskplate.contract import ErrorCode, TaskplateError

from ._sampling import Sampled, SamplingRequest, masked

if TYPE_CHECKING:
    import httpx

    from taskplate.providers import ModelEndpoint

_HINT = "Check the url of {named_in}, and that the endpoint is running."


class ChatCompletions:
    """Asks the endpoint an `[llm]` table names (or TASKPLATE_LLM_URL), at temperature 0."""

    def __init__(self, endpoint: ModelEndpoint, env: Mapping[str, str] | None = None) -> None:
        base = endpoint.url.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else f"{base}/chat/completions"
        self.endpoint = endpoint
        self.env = os.environ if env is None else env

    def _failed(self, message: str, hint: str = "", token: str = "") -> TaskplateError:
        hint = hint or _HINT.format(named_in=self.endpoint.named_in)
        return TaskplateError(
            ErrorCode.LLM_UNAVAILABLE,
            masked(message, [token]),
            masked(hint, [token]),
            {"model": {"via": "endpoint", "name": self.endpoint.model}, "url": self.url},
        )

    def _token(self) -> str:
        name = self.endpoint.token_env
        if name is None:
            return ""
        token = self.env.get(name, "")
        if not token:
            raise self._failed(
                f"the language model's token is not set: the environment variable {name} "
                f"(token_env of {self.endpoint.named_in}) is empty or missing",
                f"Set {name} to the endpoint's bearer token where taskplate runs, or drop "
                "token_env if the endpoint needs none.",
            )
        return token

    def _body(self, request: SamplingRequest) -> dict[str, Any]:
        return {
            "model": self.endpoint.model,
            "messages": [
                {"role": "system", "content": request.system},
                *({"role": m.role, "content": m.text} for m in request.messages),
            ],
            "max_tokens": request.max_tokens,
            "temperature": 0,
        }

    async def sample(self, request: SamplingRequest) -> Sampled:
        import httpx

        token = self._token()
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        timeout_s = self.endpoint.timeout_ms / 1000
        try:
            async with httpx.AsyncClient(timeout=timeout_s) as client:
                response = await client.post(self.url, json=self._body(request), headers=headers)
        except httpx.TimeoutException:
            raise self._failed(
                f"the language model at {self.url} did not answer within {timeout_s:g} s",
                "Check that the endpoint is up and not overloaded, or raise timeout_ms of "
                f"{self.endpoint.named_in} (default 120000).",
            ) from None
        except httpx.HTTPError as exc:
            raise self._failed(
                f"cannot reach the language model at {self.url}: {type(exc).__name__}: {exc}",
                token=token,
            ) from None
        return Sampled(self._answer(response, token), "endpoint", self.endpoint.model)

    def _answer(self, response: httpx.Response, token: str) -> str:
        if response.status_code >= 400:
            raise self._failed(
                f"the language model at {self.url} answered HTTP {response.status_code}: "
                f"{response.text[:300]}",
                f"Check the url, the model and the token (token_env) of {self.endpoint.named_in} "
                "against what the endpoint expects.",
                token,
            )
        try:
            text = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            text = None
        if not isinstance(text, str):
            raise self._failed(
                f"{self.url} did not answer like an OpenAI-compatible chat completion (want "
                'JSON with choices[0].message.content): "' + response.text[:200] + '"',
                f"Point the url of {self.endpoint.named_in} at an OpenAI-compatible endpoint "
                "(…/v1).",
                token,
            )
        return text
