"""A language model's answers kept with a case's recording: `dsl record` keeps each question a
run asked and the model's answer; `dsl test` answers the same questions from them, offline and
the same every time, whoever the model was (the MCP client's sampling or an endpoint).

Holds questions as `llm_extract` sends them, secrets already masked there.
"""

from __future__ import annotations

from typing import Any

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib import Sampler, SamplingRequest


def _question(request: SamplingRequest) -> dict[str, Any]:
    return {
        "system": request.system,
        "messages": [{"role": m.role, "text": m.text} for m in request.messages],
    }


class RecordingSampler:
    """Asks `model` and keeps every question with its answer, in the order asked."""

    def __init__(self, model: Sampler) -> None:
        self.model = model
        self.answers: list[dict[str, Any]] = []

    async def sample(self, request: SamplingRequest) -> str:
        answer = await self.model.sample(request)
        self.answers.append({**_question(request), "answer": answer})
        return answer


class ReplaySampler:
    """Answers each question with the recorded answer to the same question (the same question
    asked again gets the next one recorded for it); a question never recorded fails."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = answers
        self._used: set[int] = set()

    async def sample(self, request: SamplingRequest) -> str:
        asked = _question(request)
        for index, recorded in enumerate(self.answers):
            same = recorded.get("system") == asked["system"]
            if same and recorded.get("messages") == asked["messages"] and index not in self._used:
                self._used.add(index)
                return str(recorded.get("answer", ""))
        raise TaskplateError(
            ErrorCode.LLM_UNAVAILABLE,
            "the recording holds no model answer for this question (the template or the page "
            "asks something it did not ask when the case was recorded)",
            "Record the case again with `dsl record`, or run it with --live.",
        )
