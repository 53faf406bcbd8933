"""A language model's answers kept with a case's recording: `dsl record` keeps each question a
run asked and the model's answer; `dsl test` answers the same questions from them, offline and
the same every time, whoever the model was (the MCP client's sampling or an endpoint).

Holds questions as `llm_extract` sends them, secrets already masked there.
"""

from __future__ import annotations

from typing import Any

from taskplate.contract import ErrorCode, TaskplateError
from taskplate.stdlib import Sampled, Sampler, SamplingRequest


def _question(request: SamplingRequest) -> dict[str, Any]:
    return {
        "system": request.system,
        "messages": [{"role": m.role, "text": m.text} for m in request.messages],
    }


class RecordingSampler:
    """Asks the model the run chose and keeps every question with its answer, in the order
    asked: `RunWiring.models` is `recording.around`."""

    def __init__(self) -> None:
        self.model: Sampler | None = None
        self.answers: list[dict[str, Any]] = []

    def around(self, chosen: Sampler) -> Sampler:
        self.model = chosen
        return self

    async def sample(self, request: SamplingRequest) -> Sampled:
        assert self.model is not None, "around() gives the recorder its model"
        answer = await self.model.sample(request)
        kept = {"answer": answer.text, "via": answer.via, "model": answer.model}
        self.answers.append({**_question(request), **kept})
        return answer


class ReplaySampler:
    """Answers each question with the recorded answer to the same question (the same question
    asked again gets the next one recorded for it); a question never recorded fails."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = answers
        self._used: set[int] = set()

    async def sample(self, request: SamplingRequest) -> Sampled:
        asked = _question(request)
        for index, recorded in enumerate(self.answers):
            same = recorded.get("system") == asked["system"]
            if same and recorded.get("messages") == asked["messages"] and index not in self._used:
                self._used.add(index)
                text, via, model = (str(recorded.get(k, "")) for k in ("answer", "via", "model"))
                return Sampled(text, via, model)
        raise TaskplateError(
            ErrorCode.LLM_UNAVAILABLE,
            "the recording holds no model answer for this question (the template or the page "
            "asks something it did not ask when the case was recorded)",
            "Record the case again with `dsl record`, or run it with --live.",
        )
