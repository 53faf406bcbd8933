"""`dsl run`'s language model: an OpenAI-compatible chat-completions endpoint named by the
environment (TASKPLATE_LLM_URL, TASKPLATE_LLM_MODEL, TASKPLATE_LLM_KEY). Never logs the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib import NoSampler, Sampler, SamplingRequest

TIMEOUT_S = 120.0
_HINT = (
    "Set TASKPLATE_LLM_URL to an OpenAI-compatible endpoint (e.g. http://127.0.0.1:8000/v1), "
    "TASKPLATE_LLM_MODEL to its model and TASKPLATE_LLM_KEY to its key if it needs one; "
    "or run the template through an MCP client that supports sampling (`dsl serve`)."
)


class HttpSampler:
    """One chat-completions request per question, at temperature 0."""

    def __init__(self, url: str, model: str, key: str | None, timeout_s: float = TIMEOUT_S):
        base = url.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else f"{base}/chat/completions"
        self.model = model
        self.key = key
        self.timeout_s = timeout_s

    async def sample(self, request: SamplingRequest) -> str:
        import httpx

        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": request.system},
                *({"role": m.role, "content": m.text} for m in request.messages),
            ],
            "max_tokens": request.max_tokens,
            "temperature": 0,
        }
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                response = await client.post(self.url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise TaskplateError(
                ErrorCode.LLM_UNAVAILABLE,
                f"cannot reach the language model at {self.url}: {type(exc).__name__}: {exc}",
                "Check TASKPLATE_LLM_URL and that the endpoint is running.",
            ) from None
        if response.status_code >= 400:
            raise TaskplateError(
                ErrorCode.LLM_UNAVAILABLE,
                f"the language model at {self.url} answered HTTP {response.status_code}: "
                f"{response.text[:300]}",
                "Check TASKPLATE_LLM_MODEL and TASKPLATE_LLM_KEY.",
            )
        try:
            text = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            text = None
        if not isinstance(text, str):
            raise TaskplateError(
                ErrorCode.LLM_UNAVAILABLE,
                f"{self.url} did not answer like an OpenAI-compatible chat completion",
                "Point TASKPLATE_LLM_URL at an OpenAI-compatible endpoint (…/v1).",
            )
        return text


def configured_sampler(env: Mapping[str, str]) -> Sampler:
    """The endpoint the environment names, or a sampler that says what to set."""
    url = env.get("TASKPLATE_LLM_URL", "").strip()
    model = env.get("TASKPLATE_LLM_MODEL", "").strip()
    if not url:
        return NoSampler(
            "no language model for llm_extract: `dsl run` has no MCP client to ask, and "
            "TASKPLATE_LLM_URL is not set",
            _HINT,
        )
    if not model:
        return NoSampler(f"TASKPLATE_LLM_URL is set ({url}) but TASKPLATE_LLM_MODEL is not", _HINT)
    return HttpSampler(url, model, env.get("TASKPLATE_LLM_KEY") or None)
