"""The model-provider seam: what `llm_extract` asks a language model, and who answers.

Only the interface and its plain data live here; the implementations are the MCP client's
sampling (`server/`) and the configured endpoint (`_chat_completions.py`). Holds no model keys.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from taskplate.contract import ErrorCode, TaskplateError

MASK = "***"


@dataclass(frozen=True)
class Message:
    """One message of a conversation sent to a language model."""

    role: str  # "user" or "assistant"
    text: str


@dataclass(frozen=True)
class SamplingRequest:
    """One question to a model: a system prompt and the conversation so far, text only."""

    system: str
    messages: tuple[Message, ...]
    max_tokens: int = 4096


@dataclass(frozen=True)
class Sampled:
    """A model's answer and who gave it: `via` "client" (the MCP client sampled) or "endpoint"
    (the configured chat-completions endpoint); `model` the model's name as its answerer says."""

    text: str
    via: str
    model: str

    def who(self) -> dict[str, str]:
        """Which model answered, as a step's result says it."""
        return {"via": self.via, "name": self.model}


class Sampler(Protocol):
    """Answers a `SamplingRequest` with the model's text, or raises a `TaskplateError`
    (SAMPLING_UNSUPPORTED, LLM_UNAVAILABLE) saying why no model can answer."""

    async def sample(self, request: SamplingRequest) -> Sampled: ...


class CallerModel(Sampler, Protocol):
    """The caller's own model (MCP sampling), which may be unable to answer at all."""

    def can_sample(self) -> bool:
        """Whether the caller declared sampling over a connection that can carry it."""
        ...


class NoSampler:
    """The run has no model: every question fails with LLM_UNAVAILABLE and what to do."""

    def __init__(self, why: str, hint: str) -> None:
        self.why = why
        self.hint = hint

    async def sample(self, request: SamplingRequest) -> Sampled:
        raise TaskplateError(ErrorCode.LLM_UNAVAILABLE, self.why, self.hint)


NO_MODEL = NoSampler(
    "no language model is available to this run",
    "Run it through an MCP client that supports sampling, or name an OpenAI-compatible "
    "endpoint in the [llm] table of taskplate.toml (docs/mcp.md, Sampling).",
)


def masked(text: str, secrets: Iterable[str]) -> str:
    """The text with every secret value replaced by ***; longest first, so a secret that
    contains another is masked whole."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
