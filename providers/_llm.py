"""`[llm]` of `taskplate.toml`: the OpenAI-compatible chat-completions endpoint that answers
`llm_extract` when the caller cannot sample (or always). Reads configuration; calls no model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

USE = ("fallback", "always")
TIMEOUT_MS = 120_000
# `dsl run`'s endpoint before `[llm]` existed, still read when no file has an `[llm]` table.
URL_VAR, MODEL_VAR, KEY_VAR = "TASKPLATE_LLM_URL", "TASKPLATE_LLM_MODEL", "TASKPLATE_LLM_KEY"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

LLM: dict[str, Any] = {
    "type": "object",
    "description": "The language model `llm_extract` asks when the MCP client cannot sample "
    "(or always): an OpenAI-compatible chat-completions endpoint.",
    "properties": {
        "url": {
            "type": "string",
            "pattern": "^https?://",
            "description": "The endpoint's base URL (…/v1; /chat/completions is added), or the "
            "chat-completions URL itself.",
        },
        "model": {"type": "string", "minLength": 1, "description": "The model to ask."},
        "token_env": {
            "type": "string",
            "pattern": _ENV_NAME.pattern,
            "description": "The environment variable holding the bearer token (never the token "
            "itself); without it, no Authorization header is sent.",
        },
        "use": {
            "enum": list(USE),
            "default": "fallback",
            "description": "fallback: only when the caller cannot sample (`dsl run`, a client "
            "without sampling); always: for every run, even when the client could sample.",
        },
        "timeout_ms": {
            "type": "integer",
            "minimum": 1,
            "default": TIMEOUT_MS,
            "description": "How long one request may take.",
        },
    },
    "required": ["url", "model"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ModelEndpoint:
    """The `[llm]` table as read: where to ask, which model, where its token is."""

    url: str
    model: str
    source: str  # the taskplate.toml it came from, or the environment variables' names
    token_env: str | None = None
    use: str = "fallback"
    timeout_ms: int = TIMEOUT_MS

    @property
    def always(self) -> bool:
        return self.use == "always"

    @property
    def named_in(self) -> str:
        """Where the operator named it, for errors: the table's file, or the variables."""
        return self.source if self.source.startswith(URL_VAR) else f"[llm] of {self.source}"


def llm_problems(table: Any) -> list[str]:
    """What is wrong with an `[llm]` table, each naming its key (`llm.url: …`); none when good."""
    from taskplate.dsl import schema_failures

    problems = []
    failures = schema_failures(LLM, table)  # jsonschema imported only to explain a bad table
    for error in sorted(failures, key=lambda e: list(e.absolute_path)):
        where = ".".join(["llm", *(str(p) for p in error.absolute_path)])
        problems.append(f"{where}: {error.message}")
    return problems


def endpoint_of(table: Any, source: str) -> ModelEndpoint | str:
    """The endpoint an `[llm]` table names, or why it names none."""
    problems = llm_problems(table)
    if problems:
        return "; ".join(problems)
    return ModelEndpoint(
        url=table["url"],
        model=table["model"],
        source=source,
        token_env=table.get("token_env"),
        use=table.get("use", "fallback"),
        timeout_ms=table.get("timeout_ms", TIMEOUT_MS),
    )


def endpoint_from_env(env: Mapping[str, str]) -> ModelEndpoint | str:
    """The endpoint TASKPLATE_LLM_URL and TASKPLATE_LLM_MODEL name (the token in
    TASKPLATE_LLM_KEY, if set), or why there is none."""
    url, model = env.get(URL_VAR, "").strip(), env.get(MODEL_VAR, "").strip()
    if not url:
        return f"no taskplate.toml has an [llm] table, and {URL_VAR} is not set"
    if not model:
        return f"{URL_VAR} is set ({url}) but {MODEL_VAR} is not"
    token_env = KEY_VAR if env.get(KEY_VAR) else None
    return ModelEndpoint(url, model, f"{URL_VAR}/_MODEL/_KEY", token_env)
